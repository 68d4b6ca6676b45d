/* SPDX-License-Identifier: GPL-2.0 */
/* What people type: durations ("1.5s", "500us") and id lists ("1,2,3"),
 * each refused with one line that says what was expected. */
#ifndef LATBPF_CORE_PARSE_H
#define LATBPF_CORE_PARSE_H

#include <linux/types.h>

#define LAT_MAX_IDS 65536	/* --pid and --tid ids, each */

int lat_parse_duration(const char *s, __u64 *ns);
int lat_parse_id_list(const char *s, __u32 **ids, __u32 *n, const char *what);
/* x onto the array *v of *n (realloc'd, doubling): 0 or -ENOMEM */
int lat_u32_append(__u32 **v, __u32 *n, __u32 x);
struct option;
/* after getopt_long returned ':' or '?': says which option, in one line
 * ("PROG: unknown option '--x' (see HELP)") */
void lat_opt_refused(const char *prog, const char *help, int c, char **argv,
		     const char *shorts, const struct option *lo);

#endif
