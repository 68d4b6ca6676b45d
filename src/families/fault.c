// SPDX-License-Identifier: GPL-2.0
/* fault family: loader side of bpf/fault.bpf.h (in the shared scheduler
 * object, families/schedcore.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/btf.h"
#include "core/clock.h"
#include "core/hist.h"
#include "core/run.h"
#include "core/snap.h"
#include "core/cpumap.h"
#include "families/family.h"
#include "families/schedcore.h"
#include "latbpf/fault.h"
#include "sched.skel.h"

struct fault {
	const struct lat_run *run;
	struct lat_schedcore *sc;	/* the shared scheduler object */
	struct sched_bpf *skel;
	struct lat_cpu_array cpus;	/* fault_cpu, mapped */
	bool has_tp, has_filemap;
	struct lat_fault_cpu *percpu;
	struct lat_fault_cpu now, before;
	__u64 t0, t_now, t_before;
};

static void fault_configure(struct sched_bpf *skel, void *priv, bool btf)
{
	struct fault *f = priv;

	if (!btf || !f->has_tp)
		return;	/* stays off: attach says why */
	skel->rodata->en_fault = true;
	lat_cpu_array_size(skel->maps.fault_cpu, f->run->ncpus);
	bpf_program__set_autoload(skel->progs.fault_user, true);
	bpf_program__set_autoload(skel->progs.fault_filemap, f->has_filemap);
}

static int fault_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	const struct lat_run *run = fc->run;
	struct fault *f = calloc(1, sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	f->run = run;
	f->sc = fc->sched;
	f->percpu = calloc(run->ncpus, sizeof(*f->percpu));
	err = f->percpu ? lat_schedcore_join(fc->sched, fault_configure, f) : -ENOMEM;
	if (err) {
		free(f->percpu);
		free(f);
		return err;
	}
	f->has_tp = lat_btf_has_tracepoint(fc->btf, "page_fault_user");
	f->has_filemap = lat_btf_has_tracepoint(fc->btf, "mm_filemap_fault");
	*priv = f;
	return 0;
}

static int fault_load(void *priv)
{
	struct fault *f = priv;
	int err = lat_schedcore_load(f->sc);

	if (err)
		return err;
	if (!f->has_tp) {
		fprintf(stderr, "fault: no exceptions:page_fault_user tracepoint "
			"(it exists on x86 only)\n");
		return -ENOTSUP;
	}
	if (!f->sc->btf) {
		fprintf(stderr, "fault: needs the tp_btf programs (task storage: kernel >= 5.12), "
			"which did not load: %s\n", f->sc->why);
		return -ENOTSUP;
	}
	f->skel = f->sc->skel;
	lat_cpu_array_init(&f->cpus, f->skel->maps.fault_cpu, f->run->ncpus);
	return 0;
}

static int fault_attach(void *priv)
{
	struct fault *f = priv;

	f->t0 = f->t_now = lat_now_ns();
	return lat_schedcore_attach(f->sc);
}

static const char *fault_mode(void *priv)
{
	return ((struct fault *)priv)->has_filemap ? "attached (tp_btf)" :
		"attached (tp_btf; no filemap:mm_filemap_fault)";
}

static int fault_poll(void *priv)
{
	struct fault *f = priv;
	int c, err;

	lat_schedcore_sweep(f->sc);
	if ((err = lat_cpu_array_read(&f->cpus, f->percpu, sizeof(*f->percpu))))
		return err;
	f->before = f->now;
	memset(&f->now, 0, sizeof(f->now));
	for (c = 0; c < f->run->ncpus; c++) {
		const struct lat_fault_cpu *p = &f->percpu[c];

		f->now.faults += p->faults;
		f->now.read += p->read;
		f->now.write += p->write;
		f->now.instr += p->instr;
		f->now.filemap += p->filemap;
		f->now.stalls += p->stalls;
		lat_hist_merge(&f->now.stall, &p->stall);
	}
	f->t_before = f->t_now;
	f->t_now = lat_now_ns();
	return 0;
}

static void fault_publish(void *priv, struct lat_snap *s)
{
	struct fault *f = priv;
	const struct lat_fault_cpu *n = &f->now, *b = &f->before;
	__u64 iv_ns = f->t_now - f->t_before, run_ns = f->t_now - f->t0;
	struct lat_node *rate;

	lat_pub_obj(s, "fault", "fault: the target's user page faults");
	lat_pub_count(s, "count", n->faults - b->faults, n->faults);
	rate = lat_pub_count(s, "rate_per_s",
			     iv_ns ? (n->faults - b->faults) * 1000000000ULL / iv_ns : 0,
			     run_ns ? n->faults * 1000000000ULL / run_ns : 0);
	if (rate) {
		rate->flags |= LAT_F_GAUGE;
		rate->metric = "rate_per_second";	/* Prometheus spells units out */
	}
	lat_pub_count(s, "read", n->read - b->read, n->read);
	lat_pub_count(s, "write", n->write - b->write, n->write);
	lat_pub_count(s, "instr", n->instr - b->instr, n->instr);
	if (f->has_filemap)
		lat_pub_count(s, "filemap", n->filemap - b->filemap, n->filemap);
	else	/* not counted here: none is not zero (probes.fault says why) */
		lat_pub_null(s, "filemap");
	lat_pub_hist(s, "stalls", "fault stalls (fault entry -> back on CPU, when it slept)",
		     &n->stall, &b->stall);
	lat_pub_end(s);
}

static void fault_destroy(void *priv)
{
	struct fault *f = priv;

	if (!f)
		return;
	lat_cpu_array_free(&f->cpus);
	lat_schedcore_leave(f->sc);
	free(f->percpu);
	free(f);
}

const struct lat_module_ops lat_fault_ops = {
	.name = "fault",
	.open = fault_open,
	.load = fault_load,
	.attach = fault_attach,
	.mode = fault_mode,
	.poll = fault_poll,
	.publish = fault_publish,
	.destroy = fault_destroy,
};
