/* SPDX-License-Identifier: GPL-2.0 */
/* The live view's terminal (tty.c). */
#ifndef LATBPF_OUTPUT_TTY_H
#define LATBPF_OUTPUT_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
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
int lat_tty_key(struct lat_tty *t);
/* the bytes of line p (n long) that fill at most cols cells, and how many
 * (cells, or NULL): a UTF-8 character takes one, an escape sequence none */
size_t lat_tty_fit(const char *p, size_t n, int cols, int *cells);	/* a pending key, or -1 */
void lat_tty_end(struct lat_tty *t);

#endif
