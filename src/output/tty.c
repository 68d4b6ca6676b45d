// SPDX-License-Identifier: GPL-2.0
/* The live view's terminal: raw keys, the alternate screen, a frame written
 * once and cut to the window (tty.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "output/tty.h"

static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

int lat_tty_begin(struct lat_tty *t, int in, int out)
{
	struct termios raw;

	t->in = in;
	t->out = out;
	if (tcgetattr(in, &t->saved))
		return -1;
	raw = t->saved;
	raw.c_lflag &= ~(ICANON | ECHO);	/* ISIG stays: Ctrl-C is SIGINT */
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(in, TCSANOW, &raw))
		return -1;
	t->active = true;
	put(out, "\033[?1049h\033[?25l", 14);	/* alternate screen, no cursor */
	return 0;
}

void lat_tty_size(int fd, int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

size_t lat_tty_fit(const char *p, size_t n, int cols, int *cells)
{
	size_t i = 0;
	int c = 0;

	while (i < n) {
		if (p[i] == '\033' && i + 1 < n && p[i + 1] == '[') {
			for (i += 2; i < n && !(p[i] >= '@' && p[i] <= '~'); i++)
				;
			i += i < n;
			continue;
		}
		if (((unsigned char)p[i] & 0xc0) != 0x80 && c++ == cols) {
			c--;
			break;
		}
		i++;
	}
	if (cells)
		*cells = c;
	return i;
}

/* Draws buf from the top-left corner: every line cut to the width, lines
 * past the height dropped with a note, the rest of the screen cleared. The
 * frame goes out in one write so it never tears. */
void lat_tty_frame(struct lat_tty *t, const char *buf, size_t len)
{
	int rows, cols, row = 0;
	size_t cap = len + 128, o = 0;
	const char *p = buf, *end = buf + len, *nl;
	char *out;

	/* each line gains ESC[K and its newline; the cut note and ESC[J */
	for (nl = buf; (nl = memchr(nl, '\n', (size_t)(end - nl))); nl++)
		cap += 4;
	out = malloc(cap + 4);
	if (!out)
		return;
	lat_tty_size(t->out, &rows, &cols);
	o += (size_t)snprintf(out, cap, "\033[H");
	while (p < end) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		/* keep the last row free so the screen never scrolls */
		if (row >= rows - 2 && nl && nl + 1 < end) {
			o += (size_t)snprintf(out + o, cap - o,
				"... (more below: enlarge the window)\033[K\n");
			break;
		}
		n = lat_tty_fit(p, n, cols, NULL);
		memcpy(out + o, p, n);
		o += n;
		o += (size_t)snprintf(out + o, cap - o, "\033[K\n");
		row++;
		p = nl ? nl + 1 : end;
	}
	o += (size_t)snprintf(out + o, cap - o, "\033[J");
	put(t->out, out, o);
	free(out);
}

int lat_tty_key(struct lat_tty *t)
{
	unsigned char c;

	return read(t->in, &c, 1) == 1 ? c : -1;
}

void lat_tty_end(struct lat_tty *t)
{
	if (!t->active)
		return;
	put(t->out, "\033[?25h\033[?1049l", 14);
	tcsetattr(t->in, TCSANOW, &t->saved);
	t->active = false;
}
