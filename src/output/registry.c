// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs an option turns on, one line each, fed in this order after
 * the text sink (and the live view). A new output is src/output/X.c with
 * its sink ops and an open function, and its line here; --help, the option
 * parser and the trace command take it from this table.
 */
#include "output/sink.h"

#define DECLARE(name) struct lat_sink *lat_##name##_output(const char *arg, struct lat_sink_env *env);
DECLARE(json)
DECLARE(hlog)
DECLARE(prom)
DECLARE(trace)

const struct lat_output lat_outputs[] = {
	{ "json", "FILE|-", "newline-delimited JSON, one object per interval\n"
			    "and a final one with \"final\": true", false, lat_json_output },
	{ "hlog", "FILE", "HdrHistogram interval log (v1.3, compressed V2\n"
			  "histograms): every time histogram, every interval", false, lat_hlog_output },
	{ "prometheus", "[HOST:]PORT", "serve GET /metrics (text format 0.0.4) on\n"
				       "HOST (default 127.0.0.1); runs until a signal\n"
				       "unless --duration is given; started by systemd\n"
				       "socket activation: the socket it was given",
	  true, lat_prom_output },
	{ "trace", "FILE", "the flight recorder's incidents as Perfetto\n"
			   "traces, FILE.1, FILE.2...; without --trigger the\n"
			   "whole window at exit, to FILE; implies --record", false,
	  lat_trace_output },
	{ NULL },
};
