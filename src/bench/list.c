// SPDX-License-Identifier: GPL-2.0
/* The benchmarks of latbpf bench, in the order they run: a literal list. A
 * new benchmark is one function in a file of its own (or its group's) and
 * one line here. */
#include <stdio.h>
#include <string.h>
#include "bench/benchmarks.h"
#include "core/proc.h"

#define S 1000000000ULL

const struct lat_bench_def lat_bench_defs[] = {
	{ "timer", "cpu", "timer_region timer_clock_gettime timer_rdtsc timer_rdtscp "
	  "timer_lfence_rdtsc timer_cpuid_rdtsc (x86) timer_cntvct timer_isb_cntvct (arm64)",
	  "what reading the time costs", S, false, lat_bench_timer },
	{ "call", "cpu", "call_0 ... call_7",
	  "a procedure call and return with 0 to 7 integer arguments", S / 2, false,
	  lat_bench_call },
	{ "syscall", "cpu", "syscall_getppid syscall_write_null",
	  "a system call that does nothing, and a 0-byte write to /dev/null", S, true,
	  lat_bench_syscall },
	{ "ctxsw", "cpu", "pipe_1thread ctxsw_thread ctxsw_process",
	  "pipe ping-pong on one core: per switch, pipe cost taken off", 2 * S, true,
	  lat_bench_ctxsw },
	{ "thread", "cpu", "thread_create_join", "pthread_create + pthread_join", S, true,
	  lat_bench_thread },
	{ "fork", "cpu", "fork_exit_wait", "fork + _exit + waitpid", S, false, lat_bench_fork },
	{ "membw", "mem", "mem_read_cache mem_write_cache mem_copy_cache mem_read_dram "
	  "mem_write_dram mem_copy_dram mem_read_cache_all mem_write_cache_all "
	  "mem_copy_cache_all mem_read_dram_all mem_write_dram_all mem_copy_dram_all",
	  "memory bandwidth in MB/s: read, write, copy; in cache and far above it", 4 * S,
	  false, lat_bench_membw },
	{ "fault_minor", "mem", "fault_minor", "first touch of anonymous memory, THP off", S, true,
	  lat_bench_fault_minor },
	{ "fault_major", "fs", "fault_major", "file pages read in by a fault, random order",
	  2 * S, false, lat_bench_fault_major },
	{ "fs_read", "fs", "fs_read_{seq,rand}_{cached,direct}_{4m,64m}",
	  "4 KiB file reads, in order and at random, page cache and O_DIRECT", 2 * S, false,
	  lat_bench_fs_read },
	{ "fs_cache", "fs", "fs_cache_4m ... fs_cache_<size>",
	  "read time per block against file size: the file cache's size", 2 * S, false,
	  lat_bench_fs_cache },
	{ "fs_contention", "fs", "fs_contention_1 fs_contention_2 ... fs_contention_<2 x cores>",
	  "O_DIRECT 4 KiB reads as 1, 2, 4 ... processes read their own files", 2 * S, false,
	  lat_bench_fs_contention },
	{ "memlat", "mem", "memlat_4k ... memlat_256m",
	  "dependent loads over a random cycle: the cache hierarchy", 5 * S, false,
	  lat_bench_memlat },
	{ "tcp_rtt", "net", "tcp_rtt", "1-byte TCP ping-pong over 127.0.0.1", S, true,
	  lat_bench_tcp_rtt },
	{ "tcp_connect", "net", "tcp_connect tcp_setup tcp_teardown",
	  "TCP connect + close over 127.0.0.1, and each alone", S, false,
	  lat_bench_tcp_connect },
	{ "tcp_bw", "net", "tcp_bw", "TCP bandwidth over 127.0.0.1 in MB/s", S, false,
	  lat_bench_tcp_bw },
	{ "hiccup", "cpu", "hiccup_raw hiccup_corrected hiccup_cpuN_raw hiccup_cpuN_corrected",
	  "jHiccup-style meter: a pinned thread per core sleeps --interval", 5 * S, false,
	  lat_bench_hiccup },
};
const int lat_bench_ndefs = sizeof(lat_bench_defs) / sizeof(lat_bench_defs[0]);

bool lat_bench_def_matches(const struct lat_bench_def *d, const char *name)
{
	size_t n = strlen(name);
	const char *u = strchr(d->name, '_');

	/* the results list also holds "(x86)" and "...": not names */
	if (!n || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return false;
	if (!strcmp(d->name, name) || !strcmp(d->group, name))
		return true;
	if (u && (size_t)(u - d->name) == n && !strncmp(d->name, name, n))
		return true;	/* a group: "fault", "tcp" */
	return lat_has_word(d->results, name);
}

void lat_bench_list(FILE *f)
{
	for (const struct lat_bench_def *d = lat_bench_defs; d < lat_bench_defs + lat_bench_ndefs;
	     d++)
		fprintf(f, "%-12s %-4s %4.1fs  %s\n%14s results: %s\n", d->name, d->group,
			d->budget_ns / 1e9, d->what, "", d->results);
}
