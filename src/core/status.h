/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a command ended. Commands return one of these; src/main.c alone turns
 * it into the exit code (0 success, 1 runtime failure, 2 usage error,
 * 3 environment: not root / no CAP_BPF, no kernel BTF, nothing attachable).
 */
#ifndef LATBPF_CORE_STATUS_H
#define LATBPF_CORE_STATUS_H

enum lat_status {
	LAT_OK,
	LAT_FAIL_RUNTIME,	/* something went wrong while running */
	LAT_FAIL_USAGE,		/* what was asked cannot be done as asked */
	LAT_FAIL_ENV,		/* this host or these privileges cannot do it */
};

#endif
