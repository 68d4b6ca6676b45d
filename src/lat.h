/* SPDX-License-Identifier: GPL-2.0 */
/* What the loader's parts share: the run's configuration, the module
 * interface every probe family implements, and the emitter it reports to. */
#ifndef LATBPF_LAT_H
#define LATBPF_LAT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include "latbpf/hist.h"
#include "latbpf/target.h"
#include "latbpf/hiccup.h"

#define LAT_FAMILY_NAMES "sched,hiccup,fault,block,tcp"
#define LAT_NR_FAMILY_NAMES 5
extern const char *const lat_family_names[LAT_NR_FAMILY_NAMES];

/* CLOCK_MONOTONIC in ns: the clock of every loader-side timestamp */
static inline __u64 lat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Everything the command line says; filled by lat_opts_parse(). */
struct lat_opts {
	__u32 pids[LAT_MAX_TARGETS], n_pids;
	__u32 tids[LAT_MAX_TARGETS], n_tids;
	unsigned probes;		/* bit i: family i of LAT_FAMILY_NAMES */
	__u64 interval_ns, duration_ns, threshold_ns;
	bool per_thread, per_cpu, per_remote, no_tui, verbose, baseline;
	const char *json_path, *hlog_path, *prom_addr;
	char **command;			/* after "--", NULL-terminated */
	bool help, version;
	bool bench;			/* "latbpf bench ..." */
	char **bench_args;
};

struct lat_schedcore;

/* The run as the modules see it. */
struct lat_run {
	struct lat_schedcore *schedcore;	/* shared by sched and hiccup */
	const struct lat_opts *opts;
	struct lat_target target;	/* resolved tgids/tids, BPF layout */
	int ncpus;			/* possible CPUs: per-CPU map value count */
	const struct btf *btf;		/* the kernel's, parsed once; for open() only */
};

/*
 * Families describe their data once; each renderer lays it out. Every value
 * comes as (this interval, whole run); a renderer picks what it shows.
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
	void (*pct)(struct lat_emit *e, const char *key, double percent);
	void (*str)(struct lat_emit *e, const char *key, const char *untrusted);
};
struct lat_emit {
	const struct lat_emit_ops *ops;
	bool final;		/* reporting the whole run, not an interval */
	bool live;		/* a terminal screen: show the run, keep lists short */
	int max_items;		/* long lists: show at most this many (0: all) */
};

/* One probe family. Functions return 0 or a negative errno and print their
 * own message, prefixed by the family name. */
struct lat_module_ops {
	const char *name;
	int (*open)(const struct lat_run *run, void **priv);	/* open, configure */
	int (*attach)(void *priv);	/* load and attach */
	const char *(*mode)(void *priv);	/* how it attached, for provenance */
	int (*poll)(void *priv);	/* read maps: close an interval */
	void (*report)(void *priv, struct lat_emit *e);
	void (*destroy)(void *priv);
};

extern const struct lat_module_ops *const lat_modules[];

/* opts.c */
int lat_opts_parse(int argc, char **argv, struct lat_opts *o);
int lat_parse_duration(const char *s, __u64 *ns);
int lat_parse_id_list(const char *s, __u32 *ids, __u32 *n, const char *what);
int lat_parse_probes(const char *s, unsigned *mask);
void lat_usage(FILE *f);

/* btf.c: what the kernel's BTF says about its tracepoints */
struct btf;
bool lat_btf_has_tracepoint(const struct btf *btf, const char *tp);
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
int lat_hc_merge_caches(struct lat_hc_intruder_list *l, const struct lat_hc_cache *c,
			int ncpus);

/* maps.c */
int lat_map_each(int fd, size_t key_size, void *buf,
		 int (*fn)(const void *key, void *value, void *ctx), void *ctx);
struct bpf_object;
__u64 lat_prog_misses(const struct bpf_object *obj);

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
__u64 lat_hist_percentile(const struct lat_hist *h, double pct);
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
int lat_fmt_bytes(char *buf, size_t len, __u64 bytes);

/* escape.c: kernel strings are untrusted */
void lat_json_str(FILE *f, const char *s);
void lat_term_str(char *dst, size_t len, const char *s);

/* emitters */
struct lat_emit *lat_json_emit_new(FILE *f);
void lat_json_record_begin(struct lat_emit *e, const char *provenance_json,
			   long interval, bool final);
void lat_json_record_end(struct lat_emit *e);
/* one JSON object with these members first (no record key); end it with
 * lat_json_record_end() */
void lat_json_object_begin(struct lat_emit *e, const char *members);
void lat_json_hist(FILE *f, const struct lat_hist *h);
FILE *lat_json_member(struct lat_emit *e, const char *key);
void lat_json_emit_free(struct lat_emit *e);
struct lat_emit *lat_text_emit_new(FILE *f, int width, bool bars);
void lat_text_emit_free(struct lat_emit *e);

/* provenance.c */
struct lat_provenance;
struct lat_provenance *lat_provenance_new(int argc, char **argv,
					  const struct lat_opts *o);
void lat_provenance_set_target(struct lat_provenance *p,
			       const struct lat_target *t, const char *comm);
void lat_provenance_set_probe(struct lat_provenance *p, const char *name,
			      const char *status);
/* JSON members (no braces), for every record; elapsed in ns */
char *lat_provenance_json(struct lat_provenance *p, __u64 elapsed_ns);
void lat_provenance_text(struct lat_provenance *p, FILE *f, __u64 elapsed_ns);
/* the host alone: "latbpf" and "host" JSON members; the first text line */
void lat_provenance_host_json(struct lat_provenance *p, FILE *f);
void lat_provenance_host_text(struct lat_provenance *p, FILE *f);
const char *lat_provenance_tsc_flags(const struct lat_provenance *p);
bool lat_has_word(const char *list, const char *word);
void lat_provenance_free(struct lat_provenance *p);

#endif
