// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf: the command table, and the one place where exit codes are chosen:
 * 0 success, 1 runtime failure, 2 usage error, 3 environment (not root / no
 * CAP_BPF, no kernel BTF, nothing attachable). Each command parses its own
 * options, from argv[sub] on.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "bench/bench.h"
#include "cli/report.h"
#include "cli/trace.h"
#include "core/status.h"

static const int exit_code[] = {
	[LAT_OK] = 0,
	[LAT_FAIL_RUNTIME] = 1,
	[LAT_FAIL_USAGE] = 2,
	[LAT_FAIL_ENV] = 3,
};

/* latbpf bench [NAME...] [OPTIONS] */
static enum lat_status bench_main(int argc, char **argv, int sub)
{
	int err;

	/* a ctxsw partner that dies must end its benchmark with an error
	 * (EPIPE), not end latbpf */
	signal(SIGPIPE, SIG_IGN);
	err = lat_bench_main(argc, argv);
	/* compare: a quarantined run is the environment's doing */
	if (err == LAT_BENCH_QUARANTINED)
		return LAT_FAIL_ENV;
	return err == -EINVAL ? LAT_FAIL_USAGE : err ? LAT_FAIL_RUNTIME : LAT_OK;
}

static const struct {
	const char *name;
	enum lat_status (*main)(int argc, char **argv, int sub);
} commands[] = {
	{ "trace", lat_trace_main },
	{ "bench", bench_main },
	{ "report", lat_report_main },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return exit_code[commands[i].main(argc, argv, 2)];
	/* no command: trace, the main job */
	return exit_code[lat_trace_main(argc, argv, 1)];
}
