/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's memory (--record): the last seconds of the
 * recorded CPUs' scheduling events (include/latbpf/record.h), per CPU in a
 * fixed budget; the target threads' waits found in them; the triggers and
 * the incidents they save; and the breakdown of a wait into what had the
 * CPU meanwhile. Filled by the record family (src/families/record.c) from
 * its ring, read by the Perfetto sink (src/output/perfetto.c) and by the
 * family's publish. Pure C: the unit tests feed it records.
 *
 * Threads: every call but lat_flight_new/free/signal runs with the lock held
 * (lat_flight_lock), since the family's drain thread adds while the main
 * thread publishes and writes.
 */
#ifndef LATBPF_FLIGHT_H
#define LATBPF_FLIGHT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "latbpf/record.h"

struct lat_snap;

/* what a CPU's events may take in memory, in chunks of LAT_FLIGHT_CHUNK;
 * past it the oldest chunk goes, and its events younger than the window
 * are counted as evicted */
#define LAT_FLIGHT_CPU_BUDGET (4U << 20)
#define LAT_FLIGHT_CHUNK (64U << 10)
/* a target's wait this long or longer is kept as a LAT_REC_DELAY record,
 * for the trace's annotations (at most 1 per target switch-in) */
#define LAT_FLIGHT_DELAY_FLOOR 50000ULL
#define LAT_FLIGHT_MAX_TRIGGERS 8
#define LAT_FLIGHT_MAX_INCIDENTS 10000
#define LAT_FLIGHT_DEFAULT_WINDOW 10000000000ULL

enum lat_trig_kind {
	LAT_TRIG_HICCUP,	/* a target's wait of any kind above a bound */
	LAT_TRIG_RUNQ,		/* a target's run-queue wait (preempted, woken) above it */
	LAT_TRIG_PCT,		/* an interval's percentile of a histogram above it */
	LAT_TRIG_SIGNAL,	/* SIGUSR2 */
	LAT_TRIG_EXIT,		/* the whole window at exit (no --trigger) */
};

struct lat_trigger {
	enum lat_trig_kind kind;
	__u64 above_ns;
	double pct;		/* LAT_TRIG_PCT: 99 for p99 */
	char hist[64];		/* LAT_TRIG_PCT: the histogram's JSON path */
	char text[128];		/* as given: how reports name it */
	__u64 before_ns, after_ns;	/* the window saved around an incident */
	__u64 every_ns;		/* at most one incident per this */
	__u32 max;		/* incidents (files) of this trigger */
};

/* --record, --trigger, --trace: filled by the trace command's options */
struct lat_flight_opts {
	bool on;
	__u64 window_ns;
	struct lat_trigger trig[LAT_FLIGHT_MAX_TRIGGERS];
	int ntrig;
	const char *trace_path;
};

/* What delayed a target thread: its wait split into parts that add up. */
enum lat_part_kind {
	LAT_PART_TASK,		/* another task ran (id: its tid) */
	LAT_PART_IRQ,		/* a hard IRQ handler (id: the IRQ) */
	LAT_PART_SOFTIRQ,	/* a softirq, its hard IRQs excluded (id: the vector) */
	LAT_PART_WAKEUP,	/* woken onto an idle CPU: until the CPU did anything */
	LAT_PART_UNEXPLAINED,	/* nothing visible: idle, the vCPU away, or unrecorded */
	LAT_PART_NR,
};
#define LAT_BD_PARTS 8		/* named parts kept; the rest summed as "(others)" */

struct lat_part {
	__u32 kind;		/* enum lat_part_kind */
	__u32 id;
	__u64 ns;
	char name[LAT_REC_COMM];	/* untrusted */
};

struct lat_breakdown {
	__u64 delay_ns;
	__u64 ns[LAT_PART_NR];	/* by kind: they add up to delay_ns */
	struct lat_part part[LAT_BD_PARTS + 1];	/* largest first */
	int nparts;
};

struct lat_incident {
	__u32 n;		/* 1..: its file is FILE.n (FILE alone for the exit one) */
	int trig;		/* index into the options' triggers; -1: exit */
	__u64 at;		/* CLOCK_BOOTTIME: the wait's end, the signal, the poll */
	__u64 from, to;		/* the window it saves */
	__u64 value_ns;		/* what tripped it: the wait, or the percentile */
	bool has_delay;		/* d holds the wait it is about */
	struct lat_rec_delay d;	/* for a signal, a percentile, the exit: the
				 * window's longest */
	struct lat_breakdown bd;
	bool closed;		/* its window is over and analysed */
	bool truncated;		/* closed early: the run ended first */
	bool written;		/* the sink has written it (or failed: err) */
	int err;
	__u32 published;	/* the snapshot interval it first appeared in */
};

struct lat_trig_stats {
	__u64 fired, skipped;	/* skipped: by every= or max= */
	__u64 last_at;
};

/* Inside the recorder (flight.c: the store; incident.c: the waits): what
 * both use, and no other file. */
struct lat_flight_chunk {
	struct lat_flight_chunk *next;
	__u32 used;		/* bytes of data */
	__u32 n;		/* records */
	__u64 first, last;	/* their earliest and latest times */
	__u64 _pad;
	unsigned char data[];
};
/* a chunk and its malloc header stay within LAT_FLIGHT_CHUNK */
#define LAT_FLIGHT_CHUNK_DATA (LAT_FLIGHT_CHUNK - sizeof(struct lat_flight_chunk) - 32)

struct lat_flight_cpu {
	struct lat_flight_chunk *head, *tail;
	__u32 nchunks;
	/* what runs there now, from its records: for the waits that
	 * interrupts make a running target thread wait */
	__u32 cur, cur_tgid;
	bool cur_target;
	int hard;		/* hard IRQ depth */
	__s32 hard_irq;
	__u64 hard_start;
	bool soft;
	__u32 soft_vec;
	__u64 soft_start;
	char cur_comm[LAT_REC_COMM];
};

/* a target thread that waits for a CPU or runs: open addressing by tid */
enum { LAT_FT_FREE, LAT_FT_RUNNABLE, LAT_FT_RUNNING };
struct lat_flight_task {
	__u32 tid;
	__u32 tgid;
	__u8 state;
	__u8 kind;		/* LAT_REC_D_PREEMPTED or _WAKEUP while runnable */
	__u8 wflags;
	__u8 _pad;
	__u16 cpu;
	__u16 wcpu;
	__u64 since;
	__u32 waker;
	char comm[LAT_REC_COMM];
	char wcomm[LAT_REC_COMM];
};



struct lat_flight {
	pthread_mutex_t lock;
	struct lat_flight_opts o;
	int ncpus;
	struct lat_flight_cpu *cpu;	/* ncpus of them */
	struct lat_flight_task *tasks;	/* target threads waiting or running */
	size_t ntasks, tasks_cap;
	struct lat_incident *inc;
	size_t ninc, inc_cap;
	struct lat_trig_stats ts[LAT_FLIGHT_MAX_TRIGGERS];
	__u32 next_n;
	__u64 upto;		/* every record up to this time is in */
	__u64 pruned_at;	/* the waits last looked over */
	__u64 newest;		/* the newest record's time */
	__u64 events, bytes;	/* every record added; those kept now */
	__u64 evicted;		/* records within the window the budget refused */
	__u64 dropped_bad;	/* records that made no sense (size, type, CPU) */
	__u32 budget_chunks;	/* per CPU */
};

struct lat_flight *lat_flight_new(const struct lat_flight_opts *o, int ncpus);
/* inside: a record into its CPU's chunks; the chunks older than cut freed */
int lat_flight_store(struct lat_flight *f, const void *rec, size_t size);
void lat_flight_age(struct lat_flight *f, __u64 cut);
void lat_flight_free(struct lat_flight *f);
void lat_flight_lock(struct lat_flight *f);
void lat_flight_unlock(struct lat_flight *f);

/* a record from the kernel: kept, and the target's waits and the triggers
 * worked out; 0 or -EINVAL (counted in dropped_bad) or -ENOMEM */
int lat_flight_add(struct lat_flight *f, const void *rec, size_t size);
/* after a drain: every record up to `upto` (CLOCK_BOOTTIME) is in; ages
 * out what is past the window, closes the incidents whose window ended */
void lat_flight_tick(struct lat_flight *f, __u64 upto);
/* the run ends: every incident closed with what there is; without
 * triggers, one for the whole window (`exit`) */
void lat_flight_finish(struct lat_flight *f);
/* SIGUSR2: an incident now, if a trigger asks for it (false: none does);
 * the one call that takes the lock itself */
bool lat_flight_signal(struct lat_flight *f, __u64 now);
/* the percentile triggers, on an interval's snapshot */
void lat_flight_snap(struct lat_flight *f, const struct lat_snap *s, __u64 now);

/* The records of one CPU within [from, to], in time order: an array of
 * pointers into the store, valid while the lock is held; free() it.
 * Returns how many, or -ENOMEM. */
long lat_flight_window(struct lat_flight *f, int cpu, __u64 from, __u64 to,
		       const struct lat_rec_head ***recs);
/* the oldest and newest times kept (0, 0: nothing) */
void lat_flight_span(struct lat_flight *f, __u64 *oldest, __u64 *newest);
/* The breakdown of wait d from the records of its CPU (recs, n: sorted,
 * from lat_flight_window) */
void lat_flight_breakdown(const struct lat_rec_head *const *recs, long n,
			  const struct lat_rec_delay *d, struct lat_breakdown *bd);
/* the longest target wait recorded within [from, to]; false: none */
bool lat_flight_longest(struct lat_flight *f, __u64 from, __u64 to, struct lat_rec_delay *d);

/* a record's size by its type (0: not a type) */
size_t lat_rec_size(unsigned type);
/* names for reports */
extern const char *const lat_rec_delay_names[LAT_REC_D_NR];
extern const char *const lat_part_names[LAT_PART_NR];
/* "TIMER" for a softirq vector (kernel/softirq.c softirq_to_name) */
const char *lat_softirq_name(__u32 vec);
/* CLOCK_BOOTTIME now, in ns: the recorder's clock */
__u64 lat_boot_ns(void);

#endif
