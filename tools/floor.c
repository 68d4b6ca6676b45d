// SPDX-License-Identifier: GPL-2.0
/* floor: attaches bpf/floor.bpf.c (empty programs on sched_switch,
 * sched_wakeup, hrtimer_start, hrtimer_expire_entry and hrtimer_cancel;
 * with --blocks also one program per handler building block; with
 * --clock, programs that only read the clock, instead of the empty
 * scheduler ones), says "attached", and detaches on SIGINT/SIGTERM.
 * cost_tstore creates task storage in sched_switch, which PREEMPT_RT
 * forbids (bpf/sched.bpf.c, no_storage_new): there it is left out, and
 * said. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "core/proc.h"
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = floor_bpf__open();
	struct bpf_program *p;
	bool no_tstore = lat_no_storage_in_tracepoints();
	int blocks = argc > 1 && !strcmp(argv[1], "--blocks");
	int clock = argc > 1 && !strcmp(argv[1], "--clock");

	if (argc > 2 || (argc > 1 && !blocks && !clock)) {
		fprintf(stderr, "usage: floor [--blocks | --clock]\n");
		floor_bpf__destroy(skel);
		return 2;
	}
	if (skel)
		bpf_object__for_each_program(p, skel->obj) {
			const char *n = bpf_program__name(p);

			if (!strncmp(n, "cost_", 5))
				bpf_program__set_autoload(p, blocks && !(no_tstore &&
								 !strcmp(n, "cost_tstore")));
			else if (!strncmp(n, "stamp_", 6))
				bpf_program__set_autoload(p, clock);
			else if (!strncmp(n, "tfloor_", 7))	/* timers: always */
				bpf_program__set_autoload(p, true);
			else	/* floor_switch, floor_wakeup */
				bpf_program__set_autoload(p, !clock);
		}
	if (!skel || floor_bpf__load(skel) || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load or attach\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	if (blocks && no_tstore)
		fprintf(stderr, "floor: cost_tstore left out: no task storage is made in "
			"a tracepoint on PREEMPT_RT\n");
	fprintf(stderr, "floor: attached\n");
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
