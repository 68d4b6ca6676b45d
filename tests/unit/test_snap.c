// SPDX-License-Identifier: GPL-2.0
/* The output layer: what a snapshot holds, what each view of a list shows,
 * the JSON record, and the Prometheus exposition (names, labels, exact
 * cumulative buckets, escaping). */
#include <stdlib.h>
#include <string.h>
#include "core/snap.h"
#include "output/json.h"
#include "output/prom.h"
#include "output/screen.h"
#include "output/http.h"
#include "tap.h"

static struct lat_hist run, before;

static char *json(const struct lat_snap *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lat_json_write(f, s);
	fclose(f);
	return buf;
}

static bool has(const char *hay, const char *needle)
{
	bool yes = hay && strstr(hay, needle);

	if (!yes)
		printf("# missing: %s\n", needle);
	return yes;
}

/* the value of the first line starting with prefix, or -1 */
static double value_of(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return atof(p + n + 1);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

static void publish(struct lat_snap *s, long interval)
{
	lat_snap_reset(s);
	s->interval = interval;
	lat_pub_flags(lat_pub_num(s, "interval", interval), LAT_F_PROV);
	lat_pub_flags(lat_pub_obj(s, "probes", NULL), LAT_F_PROV);
	lat_pub_str(s, "fam", "attached (tp_btf)");
	lat_pub_str(s, "other", "unavailable: No such file or directory");
	lat_pub_end(s);
	lat_pub_obj(s, "fam", "a family");
	lat_pub_hist(s, "wait", "time waited", &run, &before);
	lat_pub_count(s, "hits", 3, 10);
	lat_pub_flags(lat_pub_count(s, "lost", 0, 0), LAT_F_NONZERO | LAT_F_DROP);
	lat_pub_list(s, "devices", "devices");
	lat_pub_item(s, true, true);
	lat_pub_label(s, "device", "vd\"a\n", "vda");
	lat_pub_obj(s, "read", "read");
	lat_pub_label(s, "op", "read", NULL);
	lat_pub_hist(s, "latency", NULL, &run, &before);
	lat_pub_end(s);
	lat_pub_end(s);
	lat_pub_item(s, false, true);
	lat_pub_label(s, "device", "vdb", NULL);
	lat_pub_dur(s, "busy_ns", 0, 2500000000ULL);
	lat_pub_end(s);
	lat_pub_end(s);
	lat_pub_list(s, "top", "top");
	lat_pub_rank(s, "total_ns", 2, 1);
	for (int i = 0; i < 4; i++) {
		lat_pub_item(s, i != 1, true);
		lat_pub_num(s, "id", i);
		/* run order 3,2,1,0; interval order 0,2,3 (1 was idle) */
		lat_pub_dur(s, "total_ns", i == 1 ? 0 : (unsigned long long)(10 - i), 100 + i);
		lat_pub_end(s);
	}
	lat_pub_end(s);
	lat_pub_list(s, "events", "events");
	lat_pub_flags(s->cur, LAT_F_TAIL);
	for (int i = 0; i < 5; i++) {
		lat_pub_item(s, i >= 3, true);
		lat_pub_num(s, "n", i);
		lat_pub_end(s);
	}
	lat_pub_end(s);
	lat_pub_end(s);
	lat_snap_publish_drops(s);	/* after the families, as the run does */
}

static long id_at(const struct lat_node **items, int i, const char *key)
{
	return lat_snap_find(items[i], key)->v.num;
}

int main(void)
{
	struct lat_snap s = { 0 };
	const struct lat_node **items, *fam, *top, *ev;
	char *j, *p;
	size_t len;
	int n;

	/* before: 1 value of 100 ns; run: + 1000, 1023, 1024, 1535, 1536, 5 s */
	lat_hist_record(&before, 100);
	run = before;
	lat_hist_record(&run, 1000);
	lat_hist_record(&run, 1023);
	lat_hist_record(&run, 1024);
	lat_hist_record(&run, 1535);
	lat_hist_record(&run, 1536);
	lat_hist_record(&run, 5000000000ULL);
	publish(&s, 2);
	ok(!s.oom, "published without running out of memory");
	fam = lat_snap_find(&s.root, "fam");
	top = lat_snap_find(fam, "top");
	ev = lat_snap_find(fam, "events");

	n = lat_snap_items(top, true, 0, &items);
	ok(n == 2 && id_at(items, 0, "id") == 3 && id_at(items, 1, "id") == 2,
	   "run view: ranked by the run's total, cut to keep (2)");
	free(items);
	n = lat_snap_items(top, false, 0, &items);
	ok(n == 2 && id_at(items, 0, "id") == 0 && id_at(items, 1, "id") == 2,
	   "interval view: the idle item hidden, ranked by the interval's total");
	free(items);
	n = lat_snap_items(top, true, 10, &items);
	ok(n == 1 && id_at(items, 0, "id") == 3, "a screen keeps keep_short (1)");
	free(items);
	n = lat_snap_items(ev, true, 2, &items);
	ok(n == 2 && id_at(items, 0, "n") == 3 && id_at(items, 1, "n") == 4,
	   "a newest-last list cut for a screen keeps its tail");
	free(items);
	n = lat_snap_items(ev, false, 0, &items);
	ok(n == 2 && id_at(items, 0, "n") == 3, "interval view: only this interval's events");
	free(items);

	j = json(&s);
	ok(has(j, "{\"interval\":2,\"probes\":{\"fam\":\"attached (tp_btf)\""),
	   "JSON: provenance members first, in order");
	ok(has(j, "\"wait\":{\"count\":6,") && has(j, "\"hits\":3,"),
	   "JSON interval record: the interval's histogram (6 of 7) and count");
	ok(!strstr(j, "\"lost\""), "JSON: a zero count marked nonzero-only is left out");
	ok(has(j, "\"devices\":[{\"read\":{\"latency\":"), "JSON: items and label objects");
	ok(!strstr(j, "busy_ns"), "JSON interval record: an item idle this interval is left out");
	free(j);
	s.interval = 0;
	j = json(&s);
	ok(has(j, "\"wait\":{\"count\":7,") && has(j, "\"hits\":10,") &&
	   has(j, "\"busy_ns\":2500000000"), "JSON whole-run record: the run's values");
	free(j);

	/* Prometheus, from the same snapshot */
	s.interval = 2;
	p = lat_prom_render(&s, &len);
	ok(p && len == strlen(p), "exposition rendered");
	ok(has(p, "# TYPE latbpf_fam_wait_seconds histogram\n"), "a time histogram in seconds");
	/* le 1.023 us holds 100, 1000, 1023; 1.535 us adds 1024, 1535 */
	ok(value_of(p, "latbpf_fam_wait_seconds_bucket{le=\"0.000001023\"}") == 3 &&
	   value_of(p, "latbpf_fam_wait_seconds_bucket{le=\"0.000001535\"}") == 5 &&
	   value_of(p, "latbpf_fam_wait_seconds_bucket{le=\"0.000002047\"}") == 6 &&
	   value_of(p, "latbpf_fam_wait_seconds_bucket{le=\"+Inf\"}") == 7,
	   "cumulative buckets exact at slot edges, +Inf = count");
	ok(value_of(p, "latbpf_fam_wait_seconds_count") == 7 &&
	   value_of(p, "latbpf_fam_wait_seconds_sum") > 5.0000062 &&
	   value_of(p, "latbpf_fam_wait_seconds_sum") < 5.0000063, "_count and _sum (s)");
	ok(has(p, "latbpf_fam_latency_seconds_count{device=\"vd\\\"a\\n\",op=\"read\"} 7\n"),
	   "items and label objects as labels, values escaped");
	ok(value_of(p, "latbpf_fam_hits_total") == 10, "a count is a _total counter (run)");
	ok(has(p, "latbpf_fam_busy_seconds_total{device=\"vdb\"} 2.5"),
	   "a duration: _seconds_total, _ns dropped");
	ok(has(p, "latbpf_drops_total{what=\"fam.lost\"} 0\n"),
	   "a drop counter in latbpf_drops_total, even at 0");
	ok(has(p, "latbpf_probe_up{family=\"fam\"} 1\n") &&
	   has(p, "latbpf_probe_up{family=\"other\"} 0\n"), "latbpf_probe_up per family");
	ok(has(p, "# TYPE latbpf_build_info gauge\nlatbpf_build_info{"), "latbpf_build_info");
	ok(!strstr(p, "latbpf_fam_id") && !strstr(p, "top"),
	   "unlabelled items (ranked lists, events) are not exported");
	{
		/* every family once: one HELP and TYPE each, its samples together */
		const char *l = p;
		int types = 0, wait_types = 0;

		while ((l = strstr(l, "# TYPE "))) {
			types++;
			wait_types += !strncmp(l, "# TYPE latbpf_fam_latency_seconds ", 34);
			l++;
		}
		ok(types >= 6 && wait_types == 1, "one TYPE per metric family (%d)", types);
	}
	free(p);
	lat_snap_free(&s);

	/* the summary's drops: the run's total, and an interval's own only in
	 * an interval's view (a saved final record keeps the run's totals
	 * alone, so a report rebuilt from it must print the same line) */
	{
		struct lat_screen v = { .cols = 120, .rows = 40 };
		char *t = NULL;
		size_t tl = 0;
		FILE *f;

		for (int fin = 0; fin < 2; fin++) {
			lat_snap_reset(&s);
			s.final = fin;
			s.interval = fin ? 0 : 3;
			lat_pub_obj(&s, "fam", "a family");
			lat_pub_flags(lat_pub_count(&s, "lost", 0, 1), LAT_F_NONZERO | LAT_F_DROP);
			lat_pub_end(&s);
			lat_snap_publish_drops(&s);
			f = open_memstream(&t, &tl);
			lat_screen_render(f, &s, NULL, &v);
			fclose(f);
			if (fin)
				ok(has(t, "DROPS: lost fam.lost 1\n"),
				   "whole-run summary: the run's drops, no interval's figure");
			else
				ok(has(t, "DROPS: lost fam.lost 1 (interval 0)\n"),
				   "an interval's summary: the run's drops and the interval's");
			free(t);
			t = NULL;
		}
		lat_snap_free(&s);
	}

	/* the /metrics bodies: written through a stream into a pooled block
	 * that grows, handed back and taken again without a new one */
	{
		struct lat_http_body w;
		static char big[200000];
		char *b, *b2;
		size_t blen = 0, b2len = 0;
		int good = 1;

		memset(big, 'y', sizeof(big));
		ok(!lat_http_body_open(&w), "a body opens");
		fputs("head\n", w.f);
		fwrite(big, 1, sizeof(big), w.f);
		fprintf(w.f, "tail %d\n", 42);
		b = lat_http_body_close(&w, &blen);
		ok(b && blen == 5 + sizeof(big) + 8, "a body of %zu bytes, grown past its 4 KiB", blen);
		for (size_t i = 0; b && i < sizeof(big); i++)
			good &= b[5 + i] == 'y';
		ok(b && good && !memcmp(b, "head\n", 5) && !strcmp(b + 5 + sizeof(big), "tail 42\n"),
		   "its bytes in order, NUL after them");
		lat_http_body_put(b);
		ok(!lat_http_body_open(&w), "a second body opens");
		fputs("x", w.f);
		b2 = lat_http_body_close(&w, &b2len);
		ok(b2 == b && b2len == 1 && !strcmp(b2, "x"),
		   "the second is the first's block, given back to the pool");
		lat_http_body_put(b2);
	}
	return done_testing();
}
