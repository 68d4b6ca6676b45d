/* SPDX-License-Identifier: GPL-2.0 */
/* --record [DUR], --trigger EXPR, --trace FILE: parsed into the flight
 * recorder's options (core/flight.h) */
#ifndef LATBPF_RECORD_OPTS_H
#define LATBPF_RECORD_OPTS_H

#include "core/flight.h"

/* --record [DUR] (arg NULL: no DUR), --trigger EXPR: 0, or -EINVAL said */
int lat_record_opt(struct lat_flight_opts *r, const char *arg);
int lat_trigger_opt(struct lat_flight_opts *r, const char *arg);
/* --record without =DUR: its DUR is the next word when that is a number
 * (negative too, to be refused): it, with *optind past it, or NULL */
const char *lat_record_word(int argc, char **argv, int *optind);
/* one --trigger: 0, or -EINVAL said in one line */
int lat_trigger_parse(const char *arg, struct lat_trigger *t);
/* after every option: --trigger and --trace imply --record; the window
 * holds every trigger's before; 0, or -EINVAL said in one line */
int lat_record_opts_check(struct lat_flight_opts *r);

#endif
