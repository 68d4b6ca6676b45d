// SPDX-License-Identifier: GPL-2.0
/* System call names: the table tools/gen-syscalls.sh generates at build. */
#include <stdio.h>
#include "core/syscall.h"

extern const char *const lat_syscall_names[], *const lat_syscall_names_32[];
extern const unsigned lat_syscall_names_n, lat_syscall_names_32_n;

const char *lat_syscall_name(unsigned nr, bool compat, char *buf, size_t len)
{
	const char *const *t = compat ? lat_syscall_names_32 : lat_syscall_names;
	unsigned n = compat ? lat_syscall_names_32_n : lat_syscall_names_n;

	if (nr < n && t[nr] && !compat)
		return t[nr];
	if (nr < n && t[nr])
		snprintf(buf, len, "ia32:%s", t[nr]);
	else
		snprintf(buf, len, "%ssyscall_%u", compat ? "ia32:" : "", nr);
	return buf;
}
