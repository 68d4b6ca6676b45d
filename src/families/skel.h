/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life of a family's BPF skeleton, said the same way for every family
 * (skel.c): its target filter made the run's before load, then load and
 * attach, each failure said once as "FAMILY: load failed: why" in the
 * kernel's or libbpf's own words.
 */
#ifndef LATBPF_FAMILIES_SKEL_H
#define LATBPF_FAMILIES_SKEL_H

#include <bpf/libbpf.h>
#include "core/run.h"

/* before load: the object's target maps become the run's (bpf/target.bpf.h);
 * the caller sets the skeleton's rodata lat_targ to run->target */
int lat_skel_share(const struct lat_run *run, struct bpf_object *obj);
/* 0 or -errno, said with hint ("" or " (needs ...)") after libbpf's why */
int lat_skel_load(const char *family, struct bpf_object_skeleton *s, const char *hint);
int lat_skel_attach(const char *family, struct bpf_object_skeleton *s);

#endif
