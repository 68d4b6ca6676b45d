/* SPDX-License-Identifier: GPL-2.0 */
/* What the loader's parts share: the run's configuration, the module
 * interface every probe family implements, and the emitter it reports to. */
#ifndef LATBPF_LAT_H
#define LATBPF_LAT_H

#include <sched.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include "latbpf/hist.h"
#include "latbpf/target.h"
#include "latbpf/hiccup.h"
#include "snap.h"
#include <bpf/libbpf.h>

/* the families are the registry's (src/registry.c, from the Makefile) */
#define LAT_MAX_FAMILIES 16
#define LAT_FAMILY_CFG 64	/* bytes of a family's own configuration */
#define LAT_MAX_IDS 65536	/* --pid and --tid ids, each */

/* CLOCK_MONOTONIC in ns: the clock of every loader-side timestamp */
static inline __u64 lat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns: a monotonic time (an event's
 * bpf_ktime_get_ns) plus this is its wall-clock time */
static inline long long lat_wall_minus_mono_ns(void)
{
	struct timespec mono, wall;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	return ((long long)wall.tv_sec - mono.tv_sec) * 1000000000LL +
	       (wall.tv_nsec - mono.tv_nsec);
}

/* Everything the trace command line says; filled by lat_opts_parse(). */
struct lat_opts {
	__u32 *pids, n_pids;		/* up to LAT_MAX_IDS; lat_opts_free() */
	__u32 *tids, n_tids;
	const char *cgroups[LAT_MAX_TARGETS];	/* --cgroup arguments, unsplit */
	__u32 n_cgroup_args;
	bool children;			/* --children */
	cpu_set_t watch;		/* --cpus: the hiccup family watches these */
	bool probes_given;		/* --probes was on the command line */
	unsigned probes;		/* bit i: lat_modules[i] */
	__u64 interval_ns, duration_ns;
	bool no_tui, verbose, baseline, bpf_stats;
	const char *json_path, *hlog_path, *prom_addr;
	char **command;			/* after "--", NULL-terminated */
	bool help, version;
	/* each family's own options, in the layout it alone knows */
	_Alignas(8) unsigned char cfg[LAT_MAX_FAMILIES][LAT_FAMILY_CFG];
};

struct lat_schedcore;

/* The run as the modules see it. */
struct lat_run {
	struct lat_schedcore *schedcore;	/* shared by sched and hiccup */
	const struct lat_opts *opts;
	struct lat_target target;	/* resolved tgids/tids, BPF layout */
	int ncpus;			/* possible CPUs: per-CPU map value count */
	const struct btf *btf;		/* the kernel's, parsed once; for open() only */
	/* the target maps every object shares (bpf/target.bpf.h), or -1:
	 * each object keeps its own unused ones */
	int tbits_fd, cgroups_fd, cgv_fd;
	/* every target as given (a COMMAND's pid too), and the bitmap of
	 * target tids when the kernel keeps one (NULL otherwise) */
	const __u32 *pids, *tids;
	__u32 npids, ntids;
	const __u64 *tbits;
	size_t tbits_words;
};

/* Every target thread latbpf can name now: the bitmap's tids, or the
 * listed processes' threads (/proc) and the listed tids. */
void lat_run_each_thread(const struct lat_run *run, void (*fn)(__u32 tid, void *ctx),
			 void *ctx);

/* Those of them pinned to one CPU (target.c: read at most every 100 ms,
 * every 1 ms per thread past 1000 threads); lat_run_pinned_free at exit. */
void lat_run_each_pinned(const struct lat_run *run, void (*fn)(__u32 tid, int cpu, void *ctx),
			 void *ctx);
void lat_run_pinned_free(void);

/* Before an object's load: its target maps become the run's. */
int lat_target_share(const struct lat_run *run, struct bpf_object *obj);

/*
 * A renderer that lat_snap_walk() drives through a snapshot's nodes (the
 * JSON and text sinks). Every value comes as (this interval, whole run);
 * the renderer's own mode picks what it shows. Families never see this.
 */
struct lat_emit;
struct lat_emit_ops {
	void (*obj_begin)(struct lat_emit *e, const char *key, const char *title);
	void (*obj_end)(struct lat_emit *e);
	void (*list_begin)(struct lat_emit *e, const char *key, const char *title);
	void (*list_end)(struct lat_emit *e);
	void (*hist)(struct lat_emit *e, const char *key, const char *title,
		     const struct lat_hist *iv, const struct lat_hist *run);
	/* a histogram of sizes in bytes, not times: the same in JSON */
	void (*bytes)(struct lat_emit *e, const char *key, const char *title,
		      const struct lat_hist *iv, const struct lat_hist *run);
	void (*count)(struct lat_emit *e, const char *key, __u64 iv, __u64 run);
	void (*dur)(struct lat_emit *e, const char *key, __u64 iv_ns, __u64 run_ns);
	void (*num)(struct lat_emit *e, const char *key, __s64 v);
	void (*ids)(struct lat_emit *e, const char *key, const __u32 *ids, int n);
	void (*real)(struct lat_emit *e, const char *key, double v, int decimals);
	void (*boolean)(struct lat_emit *e, const char *key, bool v);
	void (*null)(struct lat_emit *e, const char *key);
	void (*str)(struct lat_emit *e, const char *key, const char *untrusted);
};
struct lat_emit {
	const struct lat_emit_ops *ops;
	bool final;		/* reporting the whole run, not an interval */
	bool live;		/* a terminal screen: show the run, keep lists short */
	int max_items;		/* long lists: show at most this many (0: all) */
};
void lat_snap_walk(const struct lat_node *n, struct lat_emit *e);

/* A family's own command-line option: set() puts its value into the
 * family's configuration (0, or -EINVAL with a message). */
struct lat_family_opt {
	const char *name;	/* long option, without "--"; NULL ends a table */
	const char *arg;	/* its value in --help ("DUR"), NULL for a flag */
	const char *help;	/* --help's text; '\n' continues on the next line */
	int (*set)(void *cfg, const char *arg);
};

/* One probe family. Functions return 0 or a negative errno and print their
 * own message, prefixed by the family name. */
struct lat_module_ops {
	const char *name;
	const struct lat_family_opt *options;	/* its own, or NULL */
	void (*defaults)(void *cfg);	/* its configuration before options, or NULL */
	/* open, configure; cfg: its configuration (LAT_FAMILY_CFG bytes) */
	int (*open)(const struct lat_run *run, const void *cfg, void **priv);
	int (*attach)(void *priv);	/* load and attach */
	const char *(*mode)(void *priv);	/* how it attached, for provenance */
	int (*poll)(void *priv);	/* read maps: close an interval */
	/* what the last poll read, into the snapshot; valid until the next poll */
	void (*publish)(void *priv, struct lat_snap *s);
	void (*destroy)(void *priv);
};

extern const struct lat_module_ops *const lat_modules[];
int lat_nr_modules(void);
/* "sched,hiccup,..." for messages and --help */
const char *lat_family_list(void);

/* opts.c */
int lat_opts_parse(int argc, char **argv, struct lat_opts *o);
int lat_parse_duration(const char *s, __u64 *ns);
int lat_parse_id_list(const char *s, __u32 **ids, __u32 *n, const char *what);
void lat_opts_free(struct lat_opts *o);
/* x onto the array *v of *n (realloc'd, doubling): 0 or -ENOMEM */
int lat_u32_append(__u32 **v, __u32 *n, __u32 x);
int lat_parse_cpulist(const char *s, cpu_set_t *set);
char *lat_fmt_cpulist(char *buf, size_t len, const cpu_set_t *set);
int lat_parse_probes(const char *s, unsigned *mask);
void lat_usage(FILE *f);
struct option;
/* after getopt_long returned ':' or '?': says which option, in one line */
void lat_opt_refused(const char *prog, const char *help, int c, char **argv,
		     const char *shorts, const struct option *lo);

/* btf.c: what the kernel's BTF says about its tracepoints */
struct btf;
bool lat_btf_has_tracepoint(const struct btf *btf, const char *tp);
/* libbpf's own words for the last failed load: call reset before a load,
 * why after it fails ("" when libbpf said nothing) */
void lat_libbpf_reset(void);
void lat_libbpf_note(enum libbpf_print_level level, const char *fmt, va_list ap);
const char *lat_libbpf_why(char *buf, size_t len);
int lat_btf_tracepoint_nargs(const struct btf *btf, const char *tp);

/* hiccup.c: the run's intruders, from the hash and the per-CPU caches */
struct lat_hc_intruder_entry {
	struct lat_hc_intruder_key k;
	struct lat_hc_intruder v;
};
struct lat_hc_intruder_list {
	struct lat_hc_intruder_entry *a;
	size_t n, cap;
};
long lat_hc_irq_thread(const char *comm, const char **name);
int lat_hc_merge_caches(struct lat_hc_intruder_list *l, const struct lat_hc_cache *c,
			int ncpus);

/* maps.c */
int lat_map_each(int fd, size_t key_size, void *buf,
		 int (*fn)(const void *key, void *value, void *ctx), void *ctx);
void lat_map_delete_keys(int fd, const void *keys, size_t n, size_t key_size);
struct bpf_object;
__u64 lat_prog_misses(const struct bpf_object *obj);
/* a map's entries: dflt, or fewer from the environment variable var, a
 * test's knob to fill it (README, "Environment") */
__u32 lat_env_entries(const char *var, __u32 dflt);
/* writes value as key 0 of the one-entry array fd: the template a shared
 * map's new keys start from; prints "family: template: ..." on failure */
int lat_map_template(int fd, const void *value, const char *family);

/* A table of items kept in the byte order (memcmp) of a key at their start,
 * so items sharing a key prefix are adjacent: what a family keeps per map
 * key across polls (devices, remotes). */
struct lat_table {
	void *items;
	size_t n, cap, item_size, key_size;
};
void *lat_table_get(struct lat_table *t, const void *key, bool *fresh);
#define lat_table_at(t, i) ((void *)((char *)(t)->items + (i) * (t)->item_size))

/* hist.c */
void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src);
void lat_hist_delta(struct lat_hist *iv, const struct lat_hist *now,
		    const struct lat_hist *before);
/* A histogram's header and its non-empty slots only (hist.c): what the
 * loader keeps per thread, where thousands of mostly empty 5 KiB
 * histograms would be tens of MiB */
struct lat_hist_head {
	__u64 count, sum, min, max, overflow;
};
struct lat_hist_packed {
	struct lat_hist_head h;
	__u32 nz;	/* non-empty slots, stored after this header */
	__u32 _pad;
};
size_t lat_hist_packed_size(const struct lat_hist *h);	/* bytes lat_hist_pack() writes */
void lat_hist_pack(struct lat_hist_packed *p, const struct lat_hist *h);
void lat_hist_unpack(struct lat_hist *h, const struct lat_hist_packed *p);
size_t lat_hist_packed_bytes(const struct lat_hist_packed *p);	/* its size */
/* *p plus h, packed anew in place of *p (*p NULL: h alone); scratch is room
 * for one histogram. -ENOMEM leaves *p as it was. */
int lat_hist_packed_add(struct lat_hist_packed **p, const struct lat_hist *h,
			struct lat_hist *scratch);
/* the interval between two packed histograms; before NULL: since nothing */
void lat_hist_delta_packed(struct lat_hist *iv, const struct lat_hist_packed *now,
			   const struct lat_hist_packed *before);
__u64 lat_hist_percentile(const struct lat_hist *h, double pct);
/* A histogram's slots summed per power of two: row r holds [2^r, 2^(r+1))
 * ns (row 0 also 0), overflow in the last; what bars, strips and heat maps
 * draw (a slot never straddles a power of two) */
#define LAT_HIST_POW2_ROWS (LAT_HIST_MAX_LOG2 + 1)
void lat_hist_pow2(const struct lat_hist *h, __u64 rows[LAT_HIST_POW2_ROWS]);
extern const double lat_pcts[];
extern const char *const lat_pct_names[];
#define LAT_NR_PCTS 5
int lat_fmt_ns(char *buf, size_t len, __u64 ns);
/* HdrHistogram's recordValueWithExpectedInterval: a value v > I also
 * records v-I, v-2I, ... down to I, the samples an open-loop client would
 * have taken while the recorder was stalled */
void lat_hist_record_corrected(struct lat_hist *h, __u64 v, __u64 expected);
/* fewer than 10 samples beyond this percentile: it reads as the max */
bool lat_hist_too_few(const struct lat_hist *h, double pct);
bool lat_too_few(double count, double pct);	/* the same, of a count */
int lat_fmt_bytes(char *buf, size_t len, __u64 bytes);

/* escape.c: kernel strings are untrusted */
void lat_json_str(FILE *f, const char *s);
void lat_term_str(char *dst, size_t len, const char *s);
/* an argument quoted in a message: LAT_ARG_MAX bytes, escaped, cut */
#define LAT_ARG_MAX 128
const char *lat_term_arg(char *dst, size_t len, const char *s);

/* Sinks: each renders the snapshots of a run (or of a bench) its own way.
 * interval() gets every interval's, final() the whole run's at the end;
 * both return 0 or a negative errno (said on stderr). */
struct lat_sink;
struct lat_sink_ops {
	const char *name;
	int (*interval)(struct lat_sink *k, const struct lat_snap *s);
	int (*final)(struct lat_sink *k, const struct lat_snap *s);
	void (*free)(struct lat_sink *k);
};
struct lat_sink {
	const struct lat_sink_ops *ops;
};
struct lat_provenance;
struct lat_tty;
/* report_json.c: --json; one record per snapshot */
struct lat_flag_name {
	unsigned flag;
	const char *name;
};
/* node flags as the final record's "layout" names them; NULL-terminated */
extern const struct lat_flag_name lat_layout_flags[];
struct lat_sink *lat_json_sink_new(FILE *f, const char *path);
int lat_json_write(FILE *f, const struct lat_snap *s);
void lat_json_hist(FILE *f, const struct lat_hist *h);
/* report_text.c: interval blocks (log) and the whole-run summary; p NULL:
 * the provenance the snapshot carries (a saved run's) */
struct lat_sink *lat_text_sink_new(FILE *f, const struct lat_provenance *p, bool log);
/* its heat maps over time, fed every interval (the live view shows them) */
struct lat_heat_set;
struct lat_heat_set *lat_text_sink_heat(struct lat_sink *k);
/* one family in full, as the live view's panel: interval and whole-run
 * percentiles, bars */
void lat_text_panel(FILE *f, const struct lat_snap *s, const struct lat_node *fam, int cols);
/* a JSON key for people ("stolen_ns" -> "stolen") and a value in the unit
 * its key names (ns, bytes, an event's time on the wall clock) */
const char *lat_text_label(const char *key, char *buf, size_t n);
void lat_text_value(char *b, size_t n, const char *key, __u64 v, long long wall);
void lat_text_real(char *b, size_t n, const char *key, double v, int decimals);
/* report_hlog.c: --hlog FILE */
struct lat_sink *lat_hlog_sink_new(const char *path, double start_epoch_s);
/* report_prom.c: --prometheus [HOST:]PORT; its thread inherits the caller's CPUs */
struct lat_sink *lat_prom_sink_new(const char *addr);
/* the exposition of a snapshot (exposed for the unit test) */
char *lat_prom_render(const struct lat_snap *s, size_t *len);
/* bench/run.c: the clock and the table of an object holding "tsc" and
 * "results" (a bench's snapshot root, or a trace's "baseline") */
void lat_bench_table(FILE *f, const struct lat_node *bench);

/* provenance.c */
struct lat_provenance *lat_provenance_new(int argc, char **argv,
					  const struct lat_opts *o);
struct lat_tgt;
/* the target (kept, not copied); also looks up its first pid's cgroup */
void lat_provenance_set_target(struct lat_provenance *p, const struct lat_tgt *g);
struct lat_away;
/* where latbpf's threads run (target.h), published with the run */
void lat_provenance_set_away(struct lat_provenance *p, const struct lat_away *a);
void lat_provenance_set_probe(struct lat_provenance *p, const char *name,
			      const char *status);
/* into the snapshot: "latbpf", "host", "run" and "probes"; elapsed in ns */
void lat_provenance_publish(const struct lat_provenance *p, struct lat_snap *s,
			    __u64 elapsed_ns);
/* the host alone: "latbpf" and "host"; the first text line */
void lat_provenance_publish_host(const struct lat_provenance *p, struct lat_snap *s);
void lat_provenance_text(const struct lat_provenance *p, FILE *f, __u64 elapsed_ns);
void lat_provenance_host_text(const struct lat_provenance *p, FILE *f);
/* the same lines from a snapshot's published provenance (a saved run) */
void lat_provenance_text_snap(const struct lat_snap *s, FILE *f);
const char *lat_provenance_tsc_flags(const struct lat_provenance *p);
/* the first line of a (sysfs, proc) file, without its newline: false, and
 * "", when it cannot be read */
bool lat_read_line(const char *path, char *buf, size_t len);
bool lat_has_word(const char *list, const char *word);
void lat_provenance_free(struct lat_provenance *p);

#endif
