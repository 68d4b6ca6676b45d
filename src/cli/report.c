// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf report FILE.json [--html OUT.html]: a run saved with --json
 * (core/saved.c reads it) rendered again: its intervals and final record fed
 * to the text sink, so the summary is the one the run printed, and with
 * --html one page of it (output/html.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/report.h"
#include "core/escape.h"
#include "core/parse.h"
#include "core/saved.h"
#include "core/status.h"
#include "output/html.h"
#include "output/sink.h"
#include "output/text.h"

static const char usage_text[] =
	"Usage: latbpf report FILE.json [--html OUT.html]\n"
	"Re-renders a run saved with --json: its whole-run summary on stdout, as\n"
	"the run printed it; --html also writes one self-contained page with its\n"
	"percentiles over time and heat maps.\n";

static int write_html(const struct lat_saved_run *r, const char *out)
{
	char q[LAT_ARG_MAX];
	FILE *f = fopen(out, "we");
	int err;

	if (!f) {
		err = -errno;
	} else {
		err = lat_report_html(f, r);
		if (fclose(f) && !err)
			err = -errno;
	}
	if (err)
		fprintf(stderr, "latbpf report: --html: writing '%s': %s\n",
			lat_term_arg(q, sizeof(q), out), strerror(-err));
	return err ? -EIO : 0;
}

static int report(int argc, char **argv, int sub)
{
	static const struct option lo[] = {
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct lat_saved_run r = { 0 };
	struct lat_sink *text = NULL;
	const char *html = NULL;
	int c, err;

	optind = sub;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		if (c == 'H') {
			html = optarg;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		} else {
			lat_opt_refused("latbpf report", "latbpf report --help", c, argv, ":h", lo);
			fputs(usage_text, stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return -EINVAL;
	}
	err = lat_saved_run_load(&r, argv[optind]);
	if (!err && !(text = lat_text_sink_new(stdout, NULL, false)))
		err = -ENOMEM;
	/* the intervals first, as the run saw them: the summary's heat maps */
	for (size_t i = 0; !err && i < r.n_iv; i++)
		if (!(err = lat_saved_run_snap(&r, i)))
			err = text->ops->interval(text, &r.snap);
	if (!err && !(err = lat_saved_run_snap(&r, r.n_iv)))
		err = text->ops->final(text, &r.snap);
	if (text)
		text->ops->free(text);
	if (!err) {
		if (fflush(stdout))
			err = -EIO;
		if (!err && html)
			err = write_html(&r, html);
	}
	lat_saved_run_free(&r);
	return err;
}

enum lat_status lat_report_main(int argc, char **argv, int sub)
{
	int err = report(argc, argv, sub);

	/* a bad file is a usage error, like a bad option */
	return err == -EINVAL ? LAT_FAIL_USAGE : err ? LAT_FAIL_RUNTIME : LAT_OK;
}
