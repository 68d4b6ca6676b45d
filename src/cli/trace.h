/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf [trace] [OPTIONS] [-- COMMAND]: the main job (trace.c). */
#ifndef LATBPF_CLI_TRACE_H
#define LATBPF_CLI_TRACE_H

#include "core/status.h"

/* argv is the whole command line (the provenance keeps it); the options
 * start at argv[sub] */
enum lat_status lat_trace_main(int argc, char **argv, int sub);

#endif
