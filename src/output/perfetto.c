// SPDX-License-Identifier: GPL-2.0
/*
 * --trace FILE: the flight recorder's windows as Perfetto traces, in
 * Perfetto's own format, so trace processor and ui.perfetto.dev open them as
 * a kernel scheduling trace.
 *
 * A trace is a Trace message: a sequence of TracePacket (field 1). Ours:
 *  - a ClockSnapshot (BOOTTIME, MONOTONIC, REALTIME) and a SystemInfo (the
 *    kernel's uname, from which trace processor reads what prev_state means);
 *  - per CPU, FtraceEventBundles of the records as the kernel's ftrace
 *    events: sched_switch, sched_waking, irq_handler_entry/exit,
 *    softirq_entry/exit, sched_migrate_task, with BOOTTIME timestamps (the
 *    bundle's default clock), each CPU's last switch before the window
 *    first, so the window starts with what each CPU ran;
 *  - a ProcessTree of every thread the records name, with its process;
 *  - per target thread that waited, a track (TrackDescriptor for the thread)
 *    with a slice (TrackEvent) per wait of the hiccup threshold or more,
 *    its breakdown (core/breakdown.c) as the slice's arguments, and the
 *    incident's trigger as an instant on a track of its own.
 * The field numbers are the format's (perfetto/protos/perfetto/trace/:
 * trace_packet.proto, ftrace/ftrace_event_bundle.proto, ftrace_event.proto,
 * sched.proto, irq.proto, ps/process_tree.proto, clock_snapshot.proto,
 * system_info.proto, track_event/track_descriptor.proto, track_event.proto,
 * debug_annotation.proto).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "core/escape.h"
#include "core/fmt.h"
#include "core/snap.h"
#include "output/pb.h"
#include "output/perfetto.h"
#include "output/sink.h"

/* Trace */
#define TRACE_PACKET 1
/* TracePacket */
#define PKT_FTRACE 1
#define PKT_PROCESS_TREE 2
#define PKT_CLOCK_SNAPSHOT 6
#define PKT_TIMESTAMP 8
#define PKT_SEQ_ID 10
#define PKT_TRACK_EVENT 11
#define PKT_SEQ_FLAGS 13
#define PKT_SYSTEM_INFO 45
#define PKT_TRACK_DESCRIPTOR 60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
/* ClockSnapshot, Clock; BuiltinClock */
#define CS_CLOCKS 1
#define CS_PRIMARY 2
#define CLOCK_ID 1
#define CLOCK_TS 2
#define BUILTIN_REALTIME 1
#define BUILTIN_MONOTONIC 3
#define BUILTIN_BOOTTIME 6
/* SystemInfo, Utsname */
#define SI_UTSNAME 1
#define UTS_SYSNAME 1
#define UTS_VERSION 2
#define UTS_RELEASE 3
#define UTS_MACHINE 4
/* FtraceEventBundle */
#define FB_CPU 1
#define FB_EVENT 2
/* FtraceEvent */
#define FE_TS 1
#define FE_PID 2
#define FE_COMMON_FLAGS 5
#define FE_SCHED_SWITCH 4
#define FE_SCHED_WAKING 20
#define FE_SOFTIRQ_ENTRY 24
#define FE_SOFTIRQ_EXIT 25
#define FE_IRQ_ENTRY 36
#define FE_IRQ_EXIT 37
#define FE_MIGRATE 491
/* ProcessTree, Process, Thread */
#define PT_PROCESSES 1
#define PT_THREADS 2
#define PR_PID 1
#define PR_PPID 2
#define PR_CMDLINE 3
#define TH_TID 1
#define TH_NAME 2
#define TH_TGID 3
/* TrackDescriptor, ThreadDescriptor */
#define TD_UUID 1
#define TD_NAME 2
#define TD_THREAD 4
#define THD_PID 1
#define THD_TID 2
#define THD_NAME 5
/* TrackEvent, DebugAnnotation */
#define TE_ANNOTATIONS 4
#define TE_TYPE 9
#define TE_TRACK 11
#define TE_CATEGORIES 22
#define TE_NAME 23
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define TYPE_INSTANT 3
#define DA_UINT 3
#define DA_INT 4
#define DA_STRING 6
#define DA_NAME 10

#define SEQ_ID 1		/* the one sequence our track events are on */
#define UUID_THREAD 0x6c6174627066ULL	/* "latbpf": << 32 | tid */
#define UUID_TRIGGERS 0x6c6174627066ULL
#define BUNDLE_EVENTS 2048	/* ftrace events per bundle packet */
#define FLUSH_BYTES (1U << 20)

/* ---- strings: the kernel's comm and IRQ names are untrusted ---- */

/* s (up to n bytes) as valid UTF-8 without control characters: any byte
 * that is not part of a well-formed sequence becomes '?' */
static void clean(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n && s[i] && o + 5 < cap) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			     (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len && i + len <= n && (len > 1 || (c >= 0x20 && c != 0x7f));

		for (size_t k = 1; ok && k < len; k++)
			ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
		if (!ok) {
			dst[o++] = '?';
			i++;
			continue;
		}
		memcpy(dst + o, s + i, len);
		o += len;
		i += len;
	}
	dst[o] = '\0';
}

static void pb_comm(struct lat_pb *p, __u32 field, const char *comm)
{
	char b[4 * LAT_REC_COMM + 1];

	clean(b, sizeof(b), comm, LAT_REC_COMM);
	lat_pb_str(p, field, b);
}

/* ---- the threads the records name ---- */

struct name {
	__u32 tid, tgid;
	char comm[LAT_REC_COMM];
};

struct names {
	struct name *a;
	size_t n, cap;		/* cap: a power of two, or 0 */
};

static void name_put(struct names *t, __u32 tid, __u32 tgid, const char *comm)
{
	size_t i;

	if (!tid)
		return;		/* the idle task: trace processor knows it */
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct name *a = calloc(cap, sizeof(*a));

		if (!a)
			return;
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->a[k].tid)
				continue;
			for (i = (t->a[k].tid * 2654435761U) & (cap - 1); a[i].tid; i = (i + 1) & (cap - 1))
				;
			a[i] = t->a[k];
		}
		free(t->a);
		t->a = a;
		t->cap = cap;
	}
	for (i = (tid * 2654435761U) & (t->cap - 1); t->a[i].tid && t->a[i].tid != tid;
	     i = (i + 1) & (t->cap - 1))
		;
	if (!t->a[i].tid)
		t->n++;
	t->a[i].tid = tid;
	t->a[i].tgid = tgid;
	memcpy(t->a[i].comm, comm, LAT_REC_COMM);
}

static void names_of(struct names *t, const struct lat_rec_head *h)
{
	const struct lat_rec_switch *s = (const void *)h;
	const struct lat_rec_waking *w = (const void *)h;
	const struct lat_rec_migrate *m = (const void *)h;

	switch (h->type) {
	case LAT_REC_SWITCH:
		name_put(t, h->pid, s->prev_tgid, s->prev_comm);
		name_put(t, s->next_pid, s->next_tgid, s->next_comm);
		break;
	case LAT_REC_WAKING:
		name_put(t, h->pid, w->tgid, w->cur_comm);
		name_put(t, w->wpid, w->wtgid, w->comm);
		break;
	case LAT_REC_MIGRATE:
		name_put(t, m->mpid, m->mtgid, m->comm);
		break;
	}
}

/* ---- ftrace events ---- */

static void ftrace_event(struct lat_pb *p, const struct lat_rec_head *h)
{
	const struct lat_rec_switch *s = (const void *)h;
	const struct lat_rec_waking *w = (const void *)h;
	const struct lat_rec_irq *q = (const void *)h;
	const struct lat_rec_softirq *sq = (const void *)h;
	const struct lat_rec_migrate *m = (const void *)h;

	lat_pb_begin(p, FB_EVENT);
	lat_pb_varint(p, FE_TS, h->ts);
	lat_pb_varint(p, FE_PID, h->pid);
	switch (h->type) {
	case LAT_REC_SWITCH:
		lat_pb_begin(p, FE_SCHED_SWITCH);
		pb_comm(p, 1, s->prev_comm);
		lat_pb_int(p, 2, h->pid);
		lat_pb_int(p, 3, s->prev_prio);
		lat_pb_int(p, 4, s->prev_state);
		pb_comm(p, 5, s->next_comm);
		lat_pb_int(p, 6, s->next_pid);
		lat_pb_int(p, 7, s->next_prio);
		lat_pb_end(p);
		break;
	case LAT_REC_WAKING:
		/* hard or soft interrupt context: Perfetto's irq_context */
		if (h->flags & LAT_REC_F_CTX)
			lat_pb_varint(p, FE_COMMON_FLAGS, h->flags & LAT_REC_F_CTX);
		lat_pb_begin(p, FE_SCHED_WAKING);
		pb_comm(p, 1, w->comm);
		lat_pb_int(p, 2, w->wpid);
		lat_pb_int(p, 3, w->prio);
		lat_pb_int(p, 4, 1);	/* success: always, since 4.13 */
		lat_pb_int(p, 5, w->target_cpu);
		lat_pb_end(p);
		break;
	case LAT_REC_IRQ:
		lat_pb_begin(p, FE_IRQ_ENTRY);
		lat_pb_int(p, 1, q->irq);
		pb_comm(p, 2, q->name);
		lat_pb_end(p);
		break;
	case LAT_REC_IRQ_EXIT:
		lat_pb_begin(p, FE_IRQ_EXIT);
		lat_pb_int(p, 1, q->irq);
		lat_pb_int(p, 2, q->ret);
		lat_pb_end(p);
		break;
	case LAT_REC_SOFTIRQ:
	case LAT_REC_SOFTIRQ_EXIT:
		lat_pb_begin(p, h->type == LAT_REC_SOFTIRQ ? FE_SOFTIRQ_ENTRY : FE_SOFTIRQ_EXIT);
		lat_pb_varint(p, 1, sq->vec);
		lat_pb_end(p);
		break;
	case LAT_REC_MIGRATE:
		lat_pb_begin(p, FE_MIGRATE);
		pb_comm(p, 1, m->comm);
		lat_pb_int(p, 2, m->mpid);
		lat_pb_int(p, 3, m->prio);
		lat_pb_int(p, 4, m->orig_cpu);
		lat_pb_int(p, 5, m->dest_cpu);
		lat_pb_end(p);
		break;
	}
	lat_pb_end(p);
}

/* ---- the writer ---- */

struct annot {
	struct lat_rec_delay d;
	struct lat_breakdown bd;
	bool trig;		/* the incident's own wait */
};

struct writer {
	FILE *out;
	struct lat_pb pb;
	struct names names;
	struct annot *an;
	size_t nan, cap_an;
	int err;
};

static void packet_begin(struct writer *w)
{
	lat_pb_begin(&w->pb, TRACE_PACKET);
}

static void packet_end(struct writer *w)
{
	lat_pb_end(&w->pb);
	if (w->pb.len >= FLUSH_BYTES && !w->pb.oom) {
		if (fwrite(w->pb.b, 1, w->pb.len, w->out) != w->pb.len)
			w->err = w->err ? w->err : -errno;
		lat_pb_reset(&w->pb);
	}
}

static void add_annot(struct writer *w, const struct lat_rec_delay *d,
		      const struct lat_rec_head *const *recs, long n, bool trig)
{
	struct annot *a;

	if (w->nan == w->cap_an) {
		size_t cap = w->cap_an ? 2 * w->cap_an : 64;

		a = realloc(w->an, cap * sizeof(*a));
		if (!a) {
			w->err = -ENOMEM;
			return;
		}
		w->an = a;
		w->cap_an = cap;
	}
	a = &w->an[w->nan++];
	a->d = *d;
	a->trig = trig;
	lat_flight_breakdown(recs, n, d, &a->bd);
}

/* A CPU's records of [from, to] as bundles, its last switch before from
 * first; its waits of thr or more kept for the annotations. */
static void cpu_bundles(struct writer *w, struct lat_flight *fl, int cpu, __u64 from,
			__u64 to, __u64 thr, const struct lat_incident *in)
{
	const struct lat_rec_head **recs;
	long n = lat_flight_window(fl, cpu, 0, to, &recs), i, first, pre, k = 0;

	if (n < 0) {
		w->err = (int)n;
		return;
	}
	for (first = 0; first < n && recs[first]->ts < from; first++)
		;
	for (pre = first - 1; pre >= 0 && recs[pre]->type != LAT_REC_SWITCH; pre--)
		;
	for (i = pre >= 0 ? pre : first; i < n; i++) {
		const struct lat_rec_head *h = recs[i];

		if (i < first && i != pre)
			continue;
		if (h->type == LAT_REC_DELAY) {
			const struct lat_rec_delay *d = (const void *)h;
			bool mine = in->has_delay && !memcmp(d, &in->d, sizeof(*d));

			if (h->ts >= from && (mine || h->ts - d->start >= thr))
				add_annot(w, d, recs, n, mine);
			continue;
		}
		names_of(&w->names, h);
		if (k % BUNDLE_EVENTS == 0) {
			if (k)
				lat_pb_end(&w->pb), packet_end(w);
			packet_begin(w);
			lat_pb_begin(&w->pb, PKT_FTRACE);
			lat_pb_varint(&w->pb, FB_CPU, (__u64)cpu);
		}
		ftrace_event(&w->pb, h);
		k++;
	}
	if (k)
		lat_pb_end(&w->pb), packet_end(w);
	free(recs);
}

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void pb_clock(struct lat_pb *p, __u32 id, __u64 ts)
{
	lat_pb_begin(p, CS_CLOCKS);
	lat_pb_varint(p, CLOCK_ID, id);
	lat_pb_varint(p, CLOCK_TS, ts);
	lat_pb_end(p);
}

/* where the BOOTTIME stamps are on the other clocks, and which kernel */
static void header(struct writer *w)
{
	__u64 boot = clock_ns(CLOCK_BOOTTIME), mono = clock_ns(CLOCK_MONOTONIC);
	__u64 real = clock_ns(CLOCK_REALTIME);
	struct utsname u;

	packet_begin(w);
	lat_pb_varint(&w->pb, PKT_TIMESTAMP, boot);
	lat_pb_begin(&w->pb, PKT_CLOCK_SNAPSHOT);
	pb_clock(&w->pb, BUILTIN_BOOTTIME, boot);
	pb_clock(&w->pb, BUILTIN_MONOTONIC, mono);
	pb_clock(&w->pb, BUILTIN_REALTIME, real);
	lat_pb_varint(&w->pb, CS_PRIMARY, BUILTIN_BOOTTIME);
	lat_pb_end(&w->pb);
	packet_end(w);
	if (uname(&u))
		return;
	packet_begin(w);
	lat_pb_begin(&w->pb, PKT_SYSTEM_INFO);
	lat_pb_begin(&w->pb, SI_UTSNAME);
	lat_pb_str(&w->pb, UTS_SYSNAME, u.sysname);
	lat_pb_str(&w->pb, UTS_VERSION, u.version);
	lat_pb_str(&w->pb, UTS_RELEASE, u.release);
	lat_pb_str(&w->pb, UTS_MACHINE, u.machine);
	lat_pb_end(&w->pb);
	lat_pb_end(&w->pb);
	packet_end(w);
}

/* a process's command line from /proc while it lives, split at its NULs */
static void cmdline(struct lat_pb *p, __u32 pid, const char *comm)
{
	char path[64], buf[1024];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	if (!n) {
		pb_comm(p, PR_CMDLINE, comm);
		return;
	}
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		char c[4 * sizeof(buf)];

		clean(c, sizeof(c), buf + i, strlen(buf + i));
		lat_pb_str(p, PR_CMDLINE, c);
	}
}

static __u32 ppid_of(__u32 pid)
{
	char path[64], line[512], *r;
	unsigned ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	/* "pid (comm) state ppid": the comm may hold anything but its last ')' */
	if (fgets(line, sizeof(line), f) && (r = strrchr(line, ')')))
		sscanf(r + 1, " %*c %u", &ppid);
	fclose(f);
	return ppid;
}

static void process_tree(struct writer *w, __u64 at)
{
	const struct names *t = &w->names;

	packet_begin(w);
	lat_pb_varint(&w->pb, PKT_TIMESTAMP, at);
	lat_pb_begin(&w->pb, PKT_PROCESS_TREE);
	for (size_t i = 0; i < t->cap; i++) {
		const struct name *x = &t->a[i];

		if (!x->tid || x->tid != x->tgid)
			continue;
		lat_pb_begin(&w->pb, PT_PROCESSES);
		lat_pb_int(&w->pb, PR_PID, x->tid);
		lat_pb_int(&w->pb, PR_PPID, ppid_of(x->tid));
		cmdline(&w->pb, x->tid, x->comm);
		lat_pb_end(&w->pb);
	}
	for (size_t i = 0; i < t->cap; i++) {
		const struct name *x = &t->a[i];

		if (!x->tid)
			continue;
		lat_pb_begin(&w->pb, PT_THREADS);
		lat_pb_int(&w->pb, TH_TID, x->tid);
		pb_comm(&w->pb, TH_NAME, x->comm);
		lat_pb_int(&w->pb, TH_TGID, x->tgid);
		lat_pb_end(&w->pb);
	}
	lat_pb_end(&w->pb);
	packet_end(w);
}

/* ---- annotations ---- */

static void arg_str(struct lat_pb *p, const char *name, const char *v)
{
	lat_pb_begin(p, TE_ANNOTATIONS);
	lat_pb_str(p, DA_NAME, name);
	lat_pb_str(p, DA_STRING, v);
	lat_pb_end(p);
}

static void arg_uint(struct lat_pb *p, const char *name, __u64 v)
{
	lat_pb_begin(p, TE_ANNOTATIONS);
	lat_pb_str(p, DA_NAME, name);
	lat_pb_varint(p, DA_UINT, v);
	lat_pb_end(p);
}

/* the largest part's name, for the slice's title and its "intruder" */
static void part_name(char *b, size_t n, const struct lat_part *pt)
{
	char c[4 * LAT_REC_COMM + 1];

	if (pt->kind == LAT_PART_WAKEUP || pt->kind == LAT_PART_UNEXPLAINED) {
		snprintf(b, n, "(%s)", lat_part_names[pt->kind]);
		return;
	}
	clean(c, sizeof(c), pt->name, LAT_REC_COMM);
	snprintf(b, n, "%s", c[0] ? c : pt->kind == LAT_PART_NR ? "(others)" : "?");
}

static void parts_text(char *b, size_t n, const struct lat_breakdown *bd)
{
	size_t l = 0;

	b[0] = '\0';
	for (int i = 0; i < bd->nparts && l + 64 < n; i++) {
		const struct lat_part *pt = &bd->part[i];
		char name[80], d[32];

		part_name(name, sizeof(name), pt);
		lat_fmt_ns(d, sizeof(d), pt->ns);
		l += (size_t)snprintf(b + l, n - l, "%s%s%s%s %s", l ? ", " : "",
				      pt->kind < LAT_PART_WAKEUP ? lat_part_names[pt->kind] : "",
				      pt->kind < LAT_PART_WAKEUP ? " " : "", name, d);
		if (pt->kind == LAT_PART_TASK && l + 16 < n)
			l += (size_t)snprintf(b + l, n - l, " (%u)", pt->id);
	}
}

/* a TrackEvent packet of type on track at ts, left open for its fields */
static void te_begin(struct writer *w, __u64 ts, __u32 type, __u64 track)
{
	packet_begin(w);
	lat_pb_varint(&w->pb, PKT_TIMESTAMP, ts);
	lat_pb_varint(&w->pb, PKT_SEQ_ID, SEQ_ID);
	lat_pb_begin(&w->pb, PKT_TRACK_EVENT);
	lat_pb_varint(&w->pb, TE_TYPE, type);
	lat_pb_varint(&w->pb, TE_TRACK, track);
}

static void te_end(struct writer *w)
{
	lat_pb_end(&w->pb);
	packet_end(w);
}

static void slice_begin(struct writer *w, const struct annot *a, const char *trig)
{
	const struct lat_rec_delay *d = &a->d;
	const struct lat_breakdown *bd = &a->bd;
	char title[160], who[80] = "-", dur[32], text[1024], c[4 * LAT_REC_COMM + 1];
	static const char *const ctx[] = { "task", "hardirq", "softirq", "nmi" };

	if (bd->nparts)
		part_name(who, sizeof(who), &bd->part[0]);
	lat_fmt_ns(dur, sizeof(dur), bd->delay_ns);
	snprintf(title, sizeof(title), "%s %s: %s", lat_rec_delay_names[d->kind], dur, who);
	te_begin(w, d->start, TYPE_SLICE_BEGIN, UUID_THREAD << 32 | d->h.pid);
	lat_pb_str(&w->pb, TE_CATEGORIES, "latbpf");
	lat_pb_str(&w->pb, TE_NAME, title);
	arg_str(&w->pb, "kind", lat_rec_delay_names[d->kind]);
	arg_str(&w->pb, "intruder", who);
	if (bd->nparts && bd->part[0].kind == LAT_PART_TASK)
		arg_uint(&w->pb, "intruder_pid", bd->part[0].id);
	arg_uint(&w->pb, "cpu", d->h.cpu);
	arg_uint(&w->pb, "delay_ns", bd->delay_ns);
	arg_uint(&w->pb, "tasks_ns", bd->ns[LAT_PART_TASK]);
	arg_uint(&w->pb, "irq_ns", bd->ns[LAT_PART_IRQ]);
	arg_uint(&w->pb, "softirq_ns", bd->ns[LAT_PART_SOFTIRQ]);
	arg_uint(&w->pb, "wakeup_ns", bd->ns[LAT_PART_WAKEUP]);
	arg_uint(&w->pb, "unexplained_ns", bd->ns[LAT_PART_UNEXPLAINED]);
	parts_text(text, sizeof(text), bd);
	arg_str(&w->pb, "parts", text);
	if (d->kind == LAT_REC_D_WAKEUP) {
		int k = d->waker_flags & LAT_REC_F_NMI ? 3 : d->waker_flags & LAT_REC_F_SOFTIRQ ?
			2 : d->waker_flags & LAT_REC_F_HARDIRQ ? 1 : 0;

		clean(c, sizeof(c), d->waker_comm, LAT_REC_COMM);
		arg_str(&w->pb, "waker", c);
		arg_uint(&w->pb, "waker_tid", d->waker);
		arg_uint(&w->pb, "waker_cpu", d->waker_cpu);
		arg_str(&w->pb, "waker_context", ctx[k]);
	}
	if (trig)
		arg_str(&w->pb, "trigger", trig);
	te_end(w);
}

static void track(struct writer *w, __u64 uuid, const char *name, __u32 pid, __u32 tid,
		  bool first)
{
	packet_begin(w);
	lat_pb_varint(&w->pb, PKT_SEQ_ID, SEQ_ID);
	if (first)
		lat_pb_varint(&w->pb, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	lat_pb_begin(&w->pb, PKT_TRACK_DESCRIPTOR);
	lat_pb_varint(&w->pb, TD_UUID, uuid);
	lat_pb_str(&w->pb, TD_NAME, name);
	if (tid) {
		lat_pb_begin(&w->pb, TD_THREAD);
		lat_pb_int(&w->pb, THD_PID, pid);
		lat_pb_int(&w->pb, THD_TID, tid);
		lat_pb_end(&w->pb);
	}
	lat_pb_end(&w->pb);
	packet_end(w);
}

static int by_start(const void *a, const void *b)
{
	const struct annot *x = a, *y = b;

	if (x->d.h.pid != y->d.h.pid)
		return x->d.h.pid < y->d.h.pid ? -1 : 1;
	return x->d.start < y->d.start ? -1 : x->d.start > y->d.start;
}

/* a track per thread that waited, a slice per wait (a thread's waits do
 * not overlap; one that would, after lost records, is left out) */
static void annotations(struct writer *w, const struct lat_incident *in, const char *trig)
{
	bool first = true;
	__u64 end = 0;

	qsort(w->an, w->nan, sizeof(*w->an), by_start);
	for (size_t i = 0; i < w->nan; i++) {
		const struct annot *a = &w->an[i];

		if (!i || a->d.h.pid != w->an[i - 1].d.h.pid) {
			track(w, UUID_THREAD << 32 | a->d.h.pid, "latbpf: waits", a->d.tgid,
			      a->d.h.pid, first);
			first = false;
			end = 0;
		}
		if (a->d.start < end)
			continue;
		slice_begin(w, a, a->trig ? trig : NULL);
		te_begin(w, a->d.h.ts, TYPE_SLICE_END, UUID_THREAD << 32 | a->d.h.pid);
		te_end(w);
		end = a->d.h.ts;
	}
	if (!trig)
		return;
	/* the window saved, as a slice; what tripped, an instant in it */
	track(w, UUID_TRIGGERS, "latbpf: triggers", 0, 0, first);
	te_begin(w, in->from, TYPE_SLICE_BEGIN, UUID_TRIGGERS);
	lat_pb_str(&w->pb, TE_NAME, "saved window");
	arg_str(&w->pb, "trigger", trig);
	te_end(w);
	te_begin(w, in->to, TYPE_SLICE_END, UUID_TRIGGERS);
	te_end(w);
	te_begin(w, in->at, TYPE_INSTANT, UUID_TRIGGERS);
	lat_pb_str(&w->pb, TE_NAME, trig);
	arg_uint(&w->pb, "incident", in->n);
	if (in->value_ns)
		arg_uint(&w->pb, "value_ns", in->value_ns);
	te_end(w);
}

int lat_perfetto_write(FILE *out, struct lat_flight *fl, const struct lat_incident *in,
		       __u64 threshold_ns)
{
	struct writer w = { .out = out };
	const char *trig = in->trig >= 0 && in->trig < fl->o.ntrig ?
			   fl->o.trig[in->trig].text : NULL;
	char tt[4 * sizeof(fl->o.trig[0].text)];

	if (threshold_ns < LAT_FLIGHT_DELAY_FLOOR)
		threshold_ns = LAT_FLIGHT_DELAY_FLOOR;
	header(&w);
	for (int c = 0; c < fl->ncpus && !w.err; c++)
		cpu_bundles(&w, fl, c, in->from, in->to, threshold_ns, in);
	if (trig)
		clean(tt, sizeof(tt), trig, strlen(trig));
	annotations(&w, in, trig ? tt : NULL);
	process_tree(&w, in->from);
	if (w.pb.oom)
		w.err = w.err ? w.err : -ENOMEM;
	if (!w.err && w.pb.len && fwrite(w.pb.b, 1, w.pb.len, out) != w.pb.len)
		w.err = -errno;
	lat_pb_free(&w.pb);
	free(w.names.a);
	free(w.an);
	return w.err;
}

/* ---- the sink ---- */

struct perfetto_sink {
	struct lat_sink k;
	struct lat_flight *fl;
	char *path;
	int err;		/* the first failure: the run's exit says so */
};

/* the hiccup family's threshold, if it runs: waits of it or more are
 * annotated */
static __u64 threshold_of(const struct lat_snap *s)
{
	const struct lat_node *h = lat_snap_find(&s->root, "hiccup");
	const struct lat_node *t = h ? lat_snap_find(h, "threshold_ns") : NULL;

	return t && t->kind == LAT_NUM && t->v.num > 0 ? (__u64)t->v.num : 1000000ULL;
}

/* what is at path, if anything, may be replaced: a regular file (a rename
 * over a device or a directory's name is not ours to do) */
static bool replaceable(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode);
}

/* written whole under a temporary name, then renamed: a reader never sees
 * half a trace */
static int write_file(struct perfetto_sink *p, const struct lat_incident *in, __u64 thr)
{
	char name[4096], tmp[4200], q[LAT_ARG_MAX];
	int err;
	FILE *f = NULL;

	if (in->trig < 0)
		snprintf(name, sizeof(name), "%s", p->path);
	else
		snprintf(name, sizeof(name), "%s.%u", p->path, in->n);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	if (!replaceable(name) || !replaceable(tmp))
		errno = EEXIST;
	else
		f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
	} else {
		err = lat_perfetto_write(f, p->fl, in, thr);
		if (fclose(f) && !err)
			err = -errno;
		if (!err && rename(tmp, name))
			err = -errno;
		if (err)
			unlink(tmp);
	}
	if (err)
		fprintf(stderr, "latbpf: --trace: cannot write '%s': %s\n",
			lat_term_arg(q, sizeof(q), name), strerror(-err));
	return err;
}

static int flush(struct lat_sink *k, const struct lat_snap *s)
{
	struct perfetto_sink *p = (struct perfetto_sink *)k;
	__u64 thr = threshold_of(s);
	int first = 0;

	lat_flight_lock(p->fl);
	for (size_t i = 0; i < p->fl->ninc; i++) {
		struct lat_incident *in = &p->fl->inc[i];

		if (!in->closed || in->written)
			continue;
		in->err = write_file(p, in, thr);
		in->written = true;
		first = first ? first : in->err;
	}
	lat_flight_unlock(p->fl);
	p->err = p->err ? p->err : first;
	return first;
}

static int perfetto_final(struct lat_sink *k, const struct lat_snap *s)
{
	struct perfetto_sink *p = (struct perfetto_sink *)k;
	bool any;

	flush(k, s);
	lat_flight_lock(p->fl);
	any = p->fl->ninc > 0;
	lat_flight_unlock(p->fl);
	if (!any)
		fprintf(stderr, "latbpf: --trace: nothing was recorded%s\n",
			p->fl->o.ntrig ? " (no trigger fired)" : "");
	return p->err;
}

static void perfetto_free(struct lat_sink *k)
{
	struct perfetto_sink *p = (struct perfetto_sink *)k;

	free(p->path);
	free(p);
}

static const struct lat_sink_ops perfetto_ops = {
	.name = "perfetto",
	.interval = flush,
	.final = perfetto_final,
	.free = perfetto_free,
};

/* --trace FILE (output/registry.c) */
struct lat_sink *lat_trace_output(const char *path, struct lat_sink_env *env)
{
	return lat_perfetto_sink_new(path, env->flight);
}

struct lat_sink *lat_perfetto_sink_new(const char *path, struct lat_flight *fl)
{
	struct perfetto_sink *p;
	char q[LAT_ARG_MAX];
	bool existed = !access(path, F_OK);
	FILE *f;

	if (!fl) {
		errno = EINVAL;
		return NULL;
	}
	/* said now, not after a run: FILE (or where FILE.n go) is writable,
	 * and a regular file if it is there */
	if (!replaceable(path)) {
		fprintf(stderr, "latbpf: --trace: cannot write '%s': not a regular file\n",
			lat_term_arg(q, sizeof(q), path));
		errno = EINVAL;
		return NULL;
	}
	f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "latbpf: --trace: cannot write '%s': %s\n",
			lat_term_arg(q, sizeof(q), path), strerror(errno));
		errno = EINVAL;
		return NULL;
	}
	fclose(f);
	if (!existed)
		unlink(path);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(path))) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->k.ops = &perfetto_ops;
	p->fl = fl;
	return &p->k;
}
