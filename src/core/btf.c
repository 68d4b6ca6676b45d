// SPDX-License-Identifier: GPL-2.0
/* Tracepoint facts from the kernel's BTF, for choosing programs before load
 * (as biolatency's has_block_rq_issue_single_arg() does), and libbpf's own
 * words for a load that failed (btf.h). */
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "core/btf.h"

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

/* whether composite t has member, or an anonymous struct or union in it does */
static bool has_member(const struct btf *btf, const struct btf_type *t, const char *member,
		       int depth)
{
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 4)
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		if (m->name_off ? !strcmp(btf__name_by_offset(btf, m->name_off), member) :
				  has_member(btf, btf__type_by_id(btf, m->type), member, depth + 1))
			return true;
	}
	return false;
}

bool lat_btf_has_member(const struct btf *btf, const char *type, const char *member)
{
	int id = btf ? btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT) : -1;

	return id > 0 && has_member(btf, btf__type_by_id(btf, id), member, 0);
}

/* What libbpf last said went wrong, for the messages of a failed load: its
 * first warning since lat_libbpf_reset() and the verifier's last word. */
static char libbpf_first[160], libbpf_verifier[160], libbpf_last_log[160];
static bool libbpf_in_log;

void lat_libbpf_reset(void)
{
	libbpf_first[0] = libbpf_verifier[0] = libbpf_last_log[0] = '\0';
	libbpf_in_log = false;
}

const char *lat_libbpf_why(char *buf, size_t len)
{
	if (!libbpf_first[0])
		return "";
	if (libbpf_verifier[0])
		snprintf(buf, len, "%s (verifier: %s)", libbpf_first, libbpf_verifier);
	else
		snprintf(buf, len, "%s", libbpf_first);
	return buf;
}

/* one line of libbpf's output, untrusted as any kernel string */
static void libbpf_keep(char *dst, size_t len, const char *line)
{
	if (!strncmp(line, "libbpf: ", 8))
		line += 8;
	snprintf(dst, len, "%.*s", (int)strcspn(line, "\n"), line);
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
}

/* the verifier's last word in text..end: its last line that is not its
 * statistics ("processed N insns ...", "verification time ...") */
static void libbpf_last_line(char *dst, size_t dlen, char *text, char *end)
{
	char *start;

	for (;;) {
		while (end > text && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		*end = '\0';
		if (end == text)
			return;
		start = strrchr(text, '\n');
		start = start ? start + 1 : text;
		if (strncmp(start, "processed ", 10) && strncmp(start, "verification time", 17)) {
			libbpf_keep(dst, dlen, start);
			return;
		}
		end = start;
	}
}

void lat_libbpf_note(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char begin[] = "-- BEGIN PROG LOAD LOG --", end[] = "-- END PROG LOAD LOG --";
	char *line = NULL, *b, *e;
	va_list copy;

	va_copy(copy, ap);
	if (level == LIBBPF_WARN && vasprintf(&line, fmt, copy) < 0)
		line = NULL;
	va_end(copy);
	if (line) {
		/* the verifier's log comes between these markers, in one call
		 * or in several; its last line says why it refused */
		b = strstr(line, begin);
		e = strstr(b ? b : line, end);
		if (b || libbpf_in_log) {
			char *body = b ? b + sizeof(begin) - 1 : line;

			libbpf_last_line(libbpf_last_log, sizeof(libbpf_last_log), body,
					 e ? e : body + strlen(body));
			libbpf_in_log = !e;
			if (e && !libbpf_verifier[0])
				snprintf(libbpf_verifier, sizeof(libbpf_verifier), "%s",
					 libbpf_last_log);
		} else if (!libbpf_first[0]) {
			libbpf_keep(libbpf_first, sizeof(libbpf_first), line);
		}
		free(line);
	}
}
