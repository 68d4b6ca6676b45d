// SPDX-License-Identifier: GPL-2.0
/* floor: attaches bpf/floor.bpf.c (empty programs on sched_switch and
 * sched_wakeup), says "attached", and detaches on SIGINT/SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	stop = 1;
}

int main(void)
{
	struct floor_bpf *skel = floor_bpf__open_and_load();

	if (!skel || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load or attach\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	fprintf(stderr, "floor: attached\n");
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
