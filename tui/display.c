// SPDX-License-Identifier: GPL-2.0-only
/*
 * ncurses set-up and tear-down, colours, and the headless mode of the tests
 * (tig's TIG_NO_DISPLAY): newterm() on /dev/null at the size LINES/COLUMNS
 * give, with :save-screen reading the virtual screen back (mvwinnstr).
 *
 * Colour is used where the terminal has it (and NO_COLOR is unset); every
 * screen reads the same without it, since characters carry the meaning
 * and colour only repeats it.
 *
 * The TUI's bottom floor: it calls no other file of tui/ (what the screen
 * shows is drawn by frame.c, draw.c and the views).
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"

enum {
	PAIR_TITLE = 1,
	PAIR_1G,
	PAIR_2M,
	PAIR_4K,
	PAIR_PROTECTED,
	PAIR_LOST,
	PAIR_PHASE,
	PAIR_INFERRED,
	PAIR_HEAD,
};

static void init_colors(struct tui *t)
{
	t->color = !t->no_color && has_colors() && !getenv("NO_COLOR");
	if (!t->color)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_1G, COLOR_WHITE, COLOR_BLUE);
	init_pair(PAIR_2M, COLOR_BLACK, COLOR_GREEN);
	init_pair(PAIR_4K, COLOR_BLACK, COLOR_YELLOW);
	init_pair(PAIR_PROTECTED, COLOR_WHITE, COLOR_MAGENTA);
	init_pair(PAIR_LOST, COLOR_WHITE, COLOR_RED);
	init_pair(PAIR_PHASE, COLOR_CYAN, -1);
	init_pair(PAIR_INFERRED, COLOR_YELLOW, -1);
	init_pair(PAIR_HEAD, COLOR_CYAN, -1);
}

/**
 * display_attr - the curses attribute of one kind of thing on the screen
 *
 * Without colour: reverse video for bars and the selection, bold for
 * headings and lost events, nothing for map cells (their characters say
 * it all).
 */
int display_attr(const struct tui *t, int what)
{
	static const struct {
		short pair;
		attr_t color_extra, mono;
	} attrs[ATTR_NR] = {
		[ATTR_TITLE] = { PAIR_TITLE, 0, A_REVERSE },
		[ATTR_STATUS] = { PAIR_TITLE, 0, A_REVERSE },
		[ATTR_HEAD] = { PAIR_HEAD, A_BOLD, A_BOLD },
		[ATTR_CURSOR] = { 0, A_REVERSE | A_BOLD, A_REVERSE | A_BOLD },
		[ATTR_LOST] = { PAIR_LOST, A_BOLD, A_REVERSE | A_BOLD },
		[ATTR_1G] = { PAIR_1G, 0, 0 },
		[ATTR_2M] = { PAIR_2M, 0, 0 },
		[ATTR_4K] = { PAIR_4K, 0, 0 },
		[ATTR_UNMAPPED] = { 0, A_DIM, 0 },
		[ATTR_PROTECTED] = { PAIR_PROTECTED, 0, A_UNDERLINE },
		[ATTR_PHASE] = { PAIR_PHASE, A_BOLD, A_BOLD },
		[ATTR_INFERRED] = { PAIR_INFERRED, 0, 0 },
		[ATTR_SELECTED] = { 0, A_REVERSE, A_REVERSE },
	};

	if (what < 0 || what >= ATTR_NR)
		return A_NORMAL;
	if (!t->color)
		return (int)attrs[what].mono;
	return (int)(COLOR_PAIR(attrs[what].pair) | attrs[what].color_extra);
}

/**
 * display_init - start curses on the terminal, or headless
 *
 * Returns 0, or -ENOTTY when there is no terminal to draw on.
 */
int display_init(struct tui *t)
{
	if (t->headless) {
		const char *term = getenv("TERM");

		t->null_out = fopen("/dev/null", "w");
		t->null_in = fopen("/dev/null", "r");
		if (!t->null_out || !t->null_in)
			return -errno;
		t->screen = newterm(term && *term ? term : "xterm", t->null_out, t->null_in);
		if (!t->screen)
			return -ENOTTY;
		set_term(t->screen);
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
			return -ENOTTY;
		if (!initscr())
			return -ENOTTY;
	}
	t->curses = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	/* Esc only cancels the GFN prompt: keep it quick, but let arrow keys
	 * over a slow link arrive whole; ESCDELAY (ms) overrides, as in ncurses */
	if (!getenv("ESCDELAY"))
		set_escdelay(100);
	curs_set(0);
	init_colors(t);
	t->lines = LINES;
	t->cols = COLS;
	t->dirty = true;
	return 0;
}

void display_end(struct tui *t)
{
	if (t->curses) {
		endwin();
		if (t->screen)
			delscreen(t->screen);
		t->curses = false;
	}
	if (t->null_out)
		fclose(t->null_out);
	if (t->null_in)
		fclose(t->null_in);
	t->screen = NULL;
	t->null_out = t->null_in = NULL;
}

/**
 * display_resize - the terminal is now @lines x @cols
 *
 * On a real terminal ncurses has resized itself (KEY_RESIZE); headless
 * (:resize in a script) the virtual screen is resized here.
 */
void display_resize(struct tui *t, int lines, int cols)
{
	if (lines > 0 && cols > 0 && (lines != LINES || cols != COLS))
		resizeterm(lines, cols);
	t->lines = LINES;
	t->cols = COLS;
	t->dirty = true;
	clear();
}

/**
 * display_save_screen - write the screen as text, one line per row
 * @name: file name, under t->screen_dir when set
 *
 * Trailing blanks are cut, so golden files stay readable.  Returns 0 or a
 * negative errno.
 */
int display_save_screen(struct tui *t, const char *name)
{
	char path[4096], *line = malloc((size_t)t->cols + 1);
	FILE *f;
	int fd;

	if (!line)
		return -ENOMEM;
	if (t->screen_dir && *t->screen_dir && name[0] != '/')
		snprintf(path, sizeof(path), "%s/%s", t->screen_dir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int r = -errno;

		if (fd >= 0)
			close(fd);
		free(line);
		return r;
	}
	for (int y = 0; y < t->lines; y++) {
		int n = mvinnstr(y, 0, line, t->cols);

		if (n < 0)
			n = 0;
		line[n] = '\0';
		while (n > 0 && line[n - 1] == ' ')
			line[--n] = '\0';
		fprintf(f, "%s\n", line);
	}
	free(line);
	return fclose(f) ? -errno : 0;
}
