/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf report FILE.json [--html OUT.html] (report.c). */
#ifndef LATBPF_CLI_REPORT_H
#define LATBPF_CLI_REPORT_H

#include "core/status.h"

/* argv[sub] on: its options */
enum lat_status lat_report_main(int argc, char **argv, int sub);

#endif
