// SPDX-License-Identifier: GPL-2.0
/* A family's BPF skeleton: share, load, attach (skel.h). */
#include <stdio.h>
#include <string.h>
#include "families/skel.h"
#include "core/btf.h"
#include "core/run.h"

int lat_skel_share(const struct lat_run *run, struct bpf_object *obj)
{
	return lat_target_share(run, obj);
}

int lat_skel_load(const char *family, struct bpf_object_skeleton *s, const char *hint)
{
	char why[200];
	int err;

	lat_libbpf_reset();
	err = bpf_object__load_skeleton(s);
	if (err)
		fprintf(stderr, "%s: load failed: %s: %s%s\n", family, strerror(-err),
			lat_libbpf_why(why, sizeof(why)), hint);
	return err;
}

int lat_skel_attach(const char *family, struct bpf_object_skeleton *s)
{
	int err = bpf_object__attach_skeleton(s);

	if (err)
		fprintf(stderr, "%s: attach failed: %s\n", family, strerror(-err));
	return err;
}
