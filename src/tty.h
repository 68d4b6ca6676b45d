/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LATBPF_TTY_H
#define LATBPF_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

/* The live view's terminal: alternate screen, keys without Enter, frames
 * redrawn in place and cut to the window. */
struct lat_tty {
	bool active;
	int in, out;
	struct termios saved;
};

int lat_tty_begin(struct lat_tty *t, int in, int out);
void lat_tty_size(int fd, int *rows, int *cols);
void lat_tty_frame(struct lat_tty *t, const char *buf, size_t len);
int lat_tty_key(struct lat_tty *t);	/* a pending key, or -1 */
void lat_tty_end(struct lat_tty *t);

#endif
