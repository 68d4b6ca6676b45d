/* SPDX-License-Identifier: GPL-2.0 */
/* System call names, as the kernel's syscall table gives them. */
#ifndef LATBPF_SYSCALL_H
#define LATBPF_SYSCALL_H

#include <stdbool.h>
#include <stddef.h>

/* The name of system call nr ("futex", "clock_nanosleep"), from the
 * <asm/unistd.h> latbpf was built with (tools/gen-syscalls.sh); compat: a
 * 32-bit task's (x86's ia32 table), "ia32:name". A number that table does
 * not know (a kernel newer than the headers) is "syscall_NR", in buf. */
const char *lat_syscall_name(unsigned nr, bool compat, char *buf, size_t len);

#endif
