// SPDX-License-Identifier: GPL-2.0
/* Tracepoint facts from the kernel's BTF, for choosing programs before load
 * (as biolatency's has_block_rq_issue_single_arg() does). */
#include <bpf/btf.h>
#include "lat.h"

static const struct btf_type *proto(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[64];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* pointer */
	t = t ? btf__type_by_id(btf, t->type) : NULL;			/* prototype */
	return t && btf_is_func_proto(t) ? t : NULL;
}

bool lat_btf_has_tracepoint(const struct btf *btf, const char *tp)
{
	return proto(btf, tp) != NULL;
}

/* Parameters of the tracepoint's prototype, its context pointer included;
 * -1 if the kernel has no such tracepoint. */
int lat_btf_tracepoint_nargs(const struct btf *btf, const char *tp)
{
	const struct btf_type *t = proto(btf, tp);

	return t ? btf_vlen(t) : -1;
}
