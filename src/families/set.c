// SPDX-License-Identifier: GPL-2.0
/* The families a run uses: see set.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "families/set.h"
#include "core/run.h"
#include "core/snap.h"
#include "core/yield.h"
#include "families/family.h"

static void unavailable(lat_family_said said, void *ctx, const char *name, int err)
{
	char why[160];

	snprintf(why, sizeof(why), "unavailable: %s", strerror(-err));
	said(ctx, name, why);
}

/* The kernel's BTF is parsed once for the opens and freed before any load,
 * where libbpf parses its own: one copy at a time. */
int lat_families_attach(struct lat_families *fs, const struct lat_run *run, unsigned mask,
			const unsigned char (*cfg)[LAT_FAMILY_CFG], lat_family_said said,
			void *ctx)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct lat_family_ctx fc = { .run = run, .btf = btf, .sched = &fs->sched };
	int i, n = 0, err, first_err = 0;

	fs->sched.run = run;
	for (i = 0; lat_modules[i] && i < LAT_MAX_FAMILIES; i++) {
		const struct lat_module_ops *ops = lat_modules[i];

		if (!(mask & (1U << i)))
			continue;
		err = ops->open(&fc, cfg[i], &fs->m[n].priv);
		if (err) {
			unavailable(said, ctx, ops->name, err);
			first_err = first_err ? first_err : err;
			continue;
		}
		fs->m[n++].ops = ops;
	}
	btf__free(btf);
	for (i = 0; i < n; i++) {
		const struct lat_module_ops *ops = fs->m[i].ops;
		void *priv = fs->m[i].priv;

		err = ops->load ? ops->load(priv) : 0;
		if (err) {
			unavailable(said, ctx, ops->name, err);
			first_err = first_err ? first_err : err;
			ops->destroy(priv);
			fs->m[i].ops = NULL;
		}
	}
	for (i = 0; i < n; i++) {
		const struct lat_module_ops *ops = fs->m[i].ops;
		void *priv = fs->m[i].priv;

		if (!ops)
			continue;
		err = ops->attach(priv);
		if (err) {
			unavailable(said, ctx, ops->name, err);
			first_err = first_err ? first_err : err;
			ops->destroy(priv);
			continue;
		}
		said(ctx, ops->name, ops->mode(priv));
		fs->m[fs->n].ops = ops;
		fs->m[fs->n++].priv = priv;
	}
	return first_err;
}

void lat_families_start(struct lat_families *fs, __u64 t0_ns)
{
	for (int i = 0; i < fs->n; i++)
		if (fs->m[i].ops->start)
			fs->m[i].ops->start(fs->m[i].priv, t0_ns);
}

int lat_families_poll(struct lat_families *fs, __u64 now_ns)
{
	int err;

	fs->sched.poll_ns = now_ns;
	for (int i = 0; i < fs->n; i++) {
		lat_yield_point();
		err = fs->m[i].ops->poll(fs->m[i].priv);
		if (err) {
			fprintf(stderr, "%s: reading maps failed: %s\n", fs->m[i].ops->name,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

void lat_families_publish(struct lat_families *fs, struct lat_snap *s)
{
	for (int i = 0; i < fs->n; i++) {
		lat_yield_point();
		fs->m[i].ops->publish(fs->m[i].priv, s);
	}
}

void lat_families_destroy(struct lat_families *fs)
{
	for (int i = 0; i < fs->n; i++)
		fs->m[i].ops->destroy(fs->m[i].priv);
	fs->n = 0;
}
