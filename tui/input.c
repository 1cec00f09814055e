// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keys: from the terminal, or from a script (tests and `make bench`), and
 * the keymap that turns them into requests.
 *
 * A script is a text file, one line per step (tig's test scripts):
 *
 *	# a comment
 *	2<Right><Right>+      keys: characters, or <Name> (see key_names[])
 *	:save-screen map.screen
 *	:wait 5               five timer ticks (play advances one step each)
 *	:wait-idle            until the data is caught up and no recorder runs
 *	:wait-complete        ... and the capture is complete (its writer is done)
 *	:sleep 300            let 300 ms of wall time pass (live data arrives)
 *	:resize 24 80         headless: resize the virtual screen
 *
 * Blanks between keys are ignored (<Space> is a space).  When the script
 * ends, the TUI quits.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder.h"
#include "tui.h"
#include "mmuscope/util.h"

#define CTRL(c) ((c) & 0x1f)
#define WAIT_IDLE_MAX_S 300.0	/* a guard for :wait-idle, not a timing */

static const struct keymap {
	int key;
	enum msc_request req;
} keymap[] = {
	{ 'q', REQ_QUIT },
	{ 'Q', REQ_QUIT },
	{ '?', REQ_HELP },
	{ KEY_F(1), REQ_HELP },
	{ '\t', REQ_NEXT_VIEW },
	{ KEY_BTAB, REQ_PREV_VIEW },
	{ '1', REQ_VIEW_OVERVIEW },
	{ '2', REQ_VIEW_MAP },
	{ '3', REQ_VIEW_PHASES },
	{ '4', REQ_VIEW_GFN },
	{ KEY_LEFT, REQ_TIME_BACK },
	{ KEY_RIGHT, REQ_TIME_FORWARD },
	{ KEY_HOME, REQ_TIME_START },
	{ KEY_END, REQ_TIME_END },
	{ '+', REQ_ZOOM_IN },
	{ '=', REQ_ZOOM_IN },
	{ '-', REQ_ZOOM_OUT },
	{ '[', REQ_PHASE_PREV },
	{ ']', REQ_PHASE_NEXT },
	{ KEY_UP, REQ_MOVE_UP },
	{ 'k', REQ_MOVE_UP },
	{ KEY_DOWN, REQ_MOVE_DOWN },
	{ 'j', REQ_MOVE_DOWN },
	{ 'h', REQ_MOVE_LEFT },
	{ 'l', REQ_MOVE_RIGHT },
	{ KEY_PPAGE, REQ_PAGE_UP },
	{ KEY_NPAGE, REQ_PAGE_DOWN },
	{ '\r', REQ_ENTER },
	{ '\n', REQ_ENTER },
	{ KEY_ENTER, REQ_ENTER },
	{ 'g', REQ_GOTO_GFN },
	{ '/', REQ_JUMP },
	{ 'n', REQ_JUMP_AGAIN },
	{ 'v', REQ_NEXT_VM },
	{ 'c', REQ_NEXT_TASK },
	{ 'p', REQ_PLAY },
	{ 's', REQ_MAP_SCALE },
	{ CTRL('L'), REQ_REDRAW },
};

/* Names of keys in scripts and in the help screen. */
static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Left", KEY_LEFT }, { "Right", KEY_RIGHT }, { "Up", KEY_UP }, { "Down", KEY_DOWN },
	{ "Home", KEY_HOME }, { "End", KEY_END }, { "PgUp", KEY_PPAGE }, { "PgDn", KEY_NPAGE },
	{ "Enter", '\r' }, { "Tab", '\t' }, { "BackTab", KEY_BTAB }, { "Esc", 27 },
	{ "Space", ' ' }, { "Backspace", KEY_BACKSPACE }, { "F1", KEY_F(1) },
	{ "C-l", CTRL('L') }, { "lt", '<' },
};

static const char *const req_names[REQ_NR] = {
#define X(name, str, help) [REQ_##name] = str,
	MSC_REQUESTS(X)
#undef X
};

static const char *const req_help[REQ_NR] = {
#define X(name, str, help) [REQ_##name] = help,
	MSC_REQUESTS(X)
#undef X
};

const char *request_name(enum msc_request req)
{
	return req < REQ_NR ? req_names[req] : "?";
}

const char *request_help(enum msc_request req)
{
	return req < REQ_NR ? req_help[req] : "";
}

/** keymap_lookup - the request bound to @key, REQ_NONE when none */
enum msc_request keymap_lookup(int key)
{
	for (size_t i = 0; i < ARRAY_SIZE(keymap); i++)
		if (keymap[i].key == key)
			return keymap[i].req;
	return REQ_NONE;
}

static void keyname_of(int key, char *buf, size_t size)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_names); i++) {
		if (key_names[i].key == key && key != '<') {
			snprintf(buf, size, "%s", key_names[i].name);
			return;
		}
	}
	snprintf(buf, size, "%c", key);
}

/** keymap_keys - the keys bound to @req, "Left h" style; returns the length */
size_t keymap_keys(enum msc_request req, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(keymap); i++) {
		char name[32];

		if (keymap[i].req != req || keymap[i].key == '\n' || keymap[i].key == KEY_ENTER)
			continue;
		keyname_of(keymap[i].key, name, sizeof(name));
		o += (size_t)snprintf(buf + o, size - min(o, size), "%s%s", o ? " " : "", name);
		if (o >= size) {
			o = size - 1;
			break;
		}
	}
	return o;
}

/**
 * input_open - read keys from @script (a file) instead of the terminal
 * @script: NULL for the terminal
 *
 * Returns 0 or a negative errno.
 */
int input_open(struct tui *t, const char *script)
{
	memset(&t->in, 0, sizeof(t->in));
	if (!script)
		return 0;
	t->in.script = fopen(script, "r");
	return t->in.script ? 0 : -errno;
}

void input_close(struct tui *t)
{
	if (t->in.script)
		fclose(t->in.script);
	t->in.script = NULL;
}

static void script_error(struct tui *t, const char *what, const char *detail)
{
	tui_message(t, "script line %u: %s%s%s", t->in.line_no, what, detail ? ": " : "",
		    detail ? detail : "");
	t->in.ended = true;
	t->script_failed = true;
}

/* A ':command' line; returns a key to give now, or 0 to read on. */
static int script_command(struct tui *t, const char *cmd)
{
	char name[256];
	int a, b;

	if (sscanf(cmd, ":save-screen %255s", name) == 1) {
		int r = display_save_screen(t, name);

		if (r)
			script_error(t, "cannot write the screen", strerror(-r));
		return 0;
	}
	if (sscanf(cmd, ":wait %d", &a) == 1 && a >= 0) {
		t->in.ticks = (unsigned int)a;
		return 0;
	}
	if (sscanf(cmd, ":sleep %d", &a) == 1 && a >= 0) {
		t->in.sleep_until = msc_mono_s() + a / 1e3;
		return 0;
	}
	if (!strcmp(cmd, ":wait-idle") || !strcmp(cmd, ":wait-complete")) {
		t->in.wait_idle = true;
		t->in.wait_complete = !strcmp(cmd, ":wait-complete");
		t->in.wait_deadline = msc_mono_s() + WAIT_IDLE_MAX_S;
		return 0;
	}
	if (sscanf(cmd, ":resize %d %d", &a, &b) == 2 && a > 0 && b > 0) {
		display_resize(t, a, b);
		return KEY_RESIZE;
	}
	script_error(t, "unknown command", cmd);
	return 0;
}

/* The next key of the current line, or 0 when the line is used up. */
static int line_key(struct tui *t)
{
	char *s = t->in.line;

	while (s[t->in.pos] == ' ' || s[t->in.pos] == '\t')
		t->in.pos++;
	if (!s[t->in.pos])
		return 0;
	if (s[t->in.pos] == '<') {
		char *end = strchr(s + t->in.pos, '>');

		if (end) {
			size_t len = (size_t)(end - s) - t->in.pos - 1;

			for (size_t i = 0; i < ARRAY_SIZE(key_names); i++) {
				if (strlen(key_names[i].name) == len &&
				    !strncmp(s + t->in.pos + 1, key_names[i].name, len)) {
					t->in.pos += len + 2;
					return key_names[i].key;
				}
			}
			script_error(t, "unknown <key>", NULL);
			return 0;
		}
	}
	return (unsigned char)s[t->in.pos++];
}

static bool waiting_idle(struct tui *t)
{
	if (!t->in.wait_idle)
		return false;
	if (tui_data_idle(t->data) && !(t->rec && t->rec->running) &&
	    (!t->in.wait_complete || t->data->cap.complete)) {
		t->in.wait_idle = false;
		return false;
	}
	if (msc_mono_s() > t->in.wait_deadline) {
		script_error(t, ":wait-idle: the data never caught up", NULL);
		return false;
	}
	return true;
}

static int script_read(struct tui *t)
{
	for (;;) {
		int key;

		if (t->in.ended)
			return INPUT_END;
		if (t->in.ticks) {
			t->in.ticks--;
			return INPUT_TIMER;
		}
		if (waiting_idle(t))
			return INPUT_TIMER;
		if (t->in.sleep_until > msc_mono_s()) {
			struct timespec tick = { .tv_nsec = 10000000 };

			nanosleep(&tick, NULL);
			return INPUT_TIMER;
		}
		key = line_key(t);
		if (key)
			return key;
		if (!fgets(t->in.line, sizeof(t->in.line), t->in.script)) {
			t->in.ended = true;
			continue;
		}
		t->in.line_no++;
		t->in.pos = 0;
		t->in.line[strcspn(t->in.line, "\r\n")] = '\0';
		if (t->in.line[0] == '#') {
			t->in.line[0] = '\0';
		} else if (t->in.line[0] == ':') {
			key = script_command(t, t->in.line);
			t->in.line[0] = '\0';
			if (key)
				return key;
		}
	}
}

/**
 * input_read - the next key
 * @timeout_ms: terminal: how long to wait, -1 forever
 *
 * Returns a key, INPUT_TIMER when the time ran out (or a script said
 * :wait), or INPUT_END when a script is over.
 */
int input_read(struct tui *t, int timeout_ms)
{
	int key;

	if (t->in.script)
		return script_read(t);
	timeout(timeout_ms);
	key = getch();
	return key == ERR ? INPUT_TIMER : key;
}
