// SPDX-License-Identifier: GPL-2.0
/* Option parsing: durations, lists, and bad values rejected with -EINVAL
 * (main.c turns that into exit 2; tests/integration/cli.t checks it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/opts.h"
#include "core/cpulist.h"
#include "core/parse.h"
#include "families/family.h"
#include "tap.h"

static int parse(const char *line, struct lat_opts *o)
{
	static char buf[512];
	char *argv[32], *tok, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "latbpf %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return lat_opts_parse(argc, argv, o);
}

int main(void)
{
	static const struct {
		const char *s;
		__u64 ns;
	} good[] = { { "500us", 500000 }, { "10ms", 10000000 }, { "1.5s", 1500000000 },
		     { "2m", 120000000000ULL }, { "1h", 3600000000000ULL },
		     { "250ns", 250 }, { "0.5ms", 500000 }, { "0s", 0 } };
	static const char *const bad[] = { "", "5", "abc", "-1s", "1x", "10 ms",
					   "1e30s", "nan", "inf", "ms", "1.5.2s" };
	struct lat_opts o;
	__u32 *ids = NULL, n;
	unsigned mask;
	__u64 ns;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(lat_parse_duration(good[i].s, &ns) == 0 && ns == good[i].ns,
		   "duration '%s' = %llu ns", good[i].s, (unsigned long long)good[i].ns);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(lat_parse_duration(bad[i], &ns) == -EINVAL, "duration '%s' rejected", bad[i]);

	n = 0;
	ids = NULL;
	ok(lat_parse_id_list("1,22,333", &ids, &n, "pid") == 0 && n == 3 &&
	   ids[0] == 1 && ids[1] == 22 && ids[2] == 333, "pid list 1,22,333");
	{
		static const char *const badids[] = { "", "0", "-5", "abc", "1,,2", "1,",
						      ",1", "1,2x", "99999999999", "1 2" };

		for (i = 0; i < sizeof(badids) / sizeof(badids[0]); i++) {
			n = 0;
			ok(lat_parse_id_list(badids[i], &ids, &n, "pid") == -EINVAL,
			   "pid list '%s' rejected", badids[i]);
		}
	}
	{
		/* thousands: 1..5000 in one list, then appended to the limit */
		char *big = malloc(5000 * 6 + 1), *p = big;
		bool all = true;

		for (i = 1; i <= 5000; i++)
			p += sprintf(p, "%s%u", i > 1 ? "," : "", (unsigned)i);
		n = 0;
		ok(lat_parse_id_list(big, &ids, &n, "pid") == 0 && n == 5000, "5000 pids (%u)", n);
		for (i = 0; i < 5000; i++)
			all &= ids[i] == i + 1;
		ok(all, "... each in order");
		n = LAT_MAX_IDS - 1;
		ids = realloc(ids, LAT_MAX_IDS * sizeof(*ids));
		ok(lat_parse_id_list("7", &ids, &n, "pid") == 0 && n == LAT_MAX_IDS,
		   "the %dth pid accepted", LAT_MAX_IDS);
		ok(lat_parse_id_list("8", &ids, &n, "pid") == -EINVAL,
		   "more than %d pids rejected", LAT_MAX_IDS);
		free(big);
		free(ids);
	}

	ok(lat_parse_probes("sched,tcp", &mask) == 0 && mask == (1U | 1U << 4),
	   "probes sched,tcp");
	/* sched, hiccup, fault, block, tcp; time and record are opt-in */
	ok(lat_parse_probes("all", &mask) == 0 && mask == 31, "probes all");
	ok(lat_parse_probes("all,time", &mask) == 0 && mask == 63, "probes all,time");
	ok(lat_parse_probes("sched,bogus", &mask) == -EINVAL, "unknown family rejected");
	ok(lat_parse_probes(",", &mask) == -EINVAL, "empty family list rejected");

	ok(parse("", &o) == 0 && o.interval_ns == 1000000000ULL && o.probes == 31 &&
	   !o.target.command && !o.target.n_pids, "defaults");
	ok(parse("--pid 12,13 --tid 14 -i 250ms -d 3s --per-thread --per-cpu --json - --no-tui -v "
		 "--hlog x.hlog --prometheus 9100", &o) == 0 && o.target.n_pids == 2 && o.target.n_tids == 1 &&
	   o.interval_ns == 250000000 && o.duration_ns == 3000000000ULL && o.no_tui &&
	   o.verbose && !strcmp(o.outputs[0], "-") && !strcmp(o.outputs[1], "x.hlog") &&
	   !strcmp(o.outputs[2], "9100"), "full option set");
	/* the families' own options land in their own configuration, which
	 * only they read: here, that it changed and that bad values fail */
	{
		struct lat_opts d;
		int sched = -1, hiccup = -1;

		parse("", &d);
		for (int k = 0; lat_modules[k]; k++) {
			sched = strcmp(lat_modules[k]->name, "sched") ? sched : k;
			hiccup = strcmp(lat_modules[k]->name, "hiccup") ? hiccup : k;
		}
		ok(sched >= 0 && hiccup >= 0 && parse("--per-thread --threshold 5ms", &o) == 0 &&
		   memcmp(o.cfg[sched], d.cfg[sched], LAT_FAMILY_CFG) != 0 &&
		   memcmp(o.cfg[hiccup], d.cfg[hiccup], LAT_FAMILY_CFG) != 0,
		   "--per-thread and --threshold set sched's and hiccup's configuration");
		ok(parse("--threshold soon", &o) == -EINVAL, "a family's bad value rejected");
	}
	ok(parse("-- sleep 1 --pid 3", &o) == 0 && o.target.command &&
	   !strcmp(o.target.command[0], "sleep") && !strcmp(o.target.command[2], "--pid") && !o.target.n_pids,
	   "options after -- belong to the command");
	ok(parse("--interval 5ms", &o) == -EINVAL, "interval below 10ms rejected");
	ok(parse("--duration 0s", &o) == -EINVAL, "zero duration rejected");
	ok(parse("--pid 1 -- true", &o) == -EINVAL, "--pid with a command rejected");
	ok(parse("--bogus", &o) == -EINVAL, "unknown option rejected");
	ok(parse("--pid", &o) == -EINVAL, "missing value rejected");
	ok(parse("sleep 1", &o) == -EINVAL, "command without -- rejected");
	ok(parse("bench ctxsw", &o) == -EINVAL, "bench is main.c's subcommand, not an argument");
	/* CPU lists as the kernel writes them (sysfs isolated, nohz_full) */
	{
		static const char *const good[] = { "", "\n", "0", "1\n", "0-3,8", "2-7,9-10,12" };
		static const char *const bad[] = { "x", "1-", "-1", "3-1", "1,,2", "99999", "1 2" };
		cpu_set_t set;
		char buf[64];
		size_t i;

		for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
			char want[32];

			snprintf(want, sizeof(want), "%.*s", (int)strcspn(good[i], "\n"), good[i]);
			ok(!lat_parse_cpulist(good[i], &set) &&
			   !strcmp(lat_fmt_cpulist(buf, sizeof(buf), &set), want),
			   "cpu list '%s' parses and prints back", want);
		}
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ok(lat_parse_cpulist(bad[i], &set) == -EINVAL, "cpu list '%s' refused", bad[i]);
		lat_parse_cpulist("0-3,8", &set);
		ok(CPU_COUNT(&set) == 5 && CPU_ISSET(8, &set) && !CPU_ISSET(4, &set),
		   "0-3,8 is CPUs 0, 1, 2, 3 and 8");
		lat_parse_cpulist("0-200", &set);
		ok(!strcmp(lat_fmt_cpulist(buf, 4, &set), "0-2"), "a list cut to its buffer ends there");
	}
	return done_testing();
}
