// SPDX-License-Identifier: GPL-2.0-only
/*
 * The help screen's text: every key, with the words its request gives
 * itself (the MSC_REQUESTS X-macro of tui.h, through the keymap of
 * input.c), then the legend of every letter and mark the screens draw, so
 * that an installed program explains itself without docs/TUI.md.  The
 * text is flowed into the screen's width at blanks: a line too long goes
 * on, indented, on the next one, and no word (no number) is ever cut.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"
#include "mmuscope/util.h"

/* What each screen draws, one entry a line before flowing; "" is a blank line. */
static const char *const legend[] = {
	"",
	"Legend",
	"Title: LIVE the cursor follows the present, PAUSED it was moved back;"
	" LOST: N gaps, M events the trace lost (never hidden)",
	"1 Overview chart: G 1G, M 2M, # 4K (height: the memory mapped then)",
	"Under the axis: ^ the cursor, ! lost events, the time labels",
	"dirty lane, the dirty-log phases: E enable, H harvest, D disable,"
	" R re-promotion (huge again after a disable), M memslot update, T teardown;"
	" lower case (e h d r m t): inferred from SPTE changes (no marker, kprobe"
	" or tracepoint)",
	"phase lane: the workload's own phases (its phase=NAME markers) and the"
	" vCPU passes, as |name---",
	"census: 4K, 2M, 1G pages mapped at the cursor; KVM: its own counters, and"
	" whether the rebuilt census equals them",
	"counts and rates over the window, as kvm_stat; 'not traced': the capture"
	" has no such events",
	"2 Map cells: G a 1G leaf, M 2M leaves, # split to 4K (all mapped), 0-9 split"
	" to 4K (tenths mapped), . unmapped; g m %: the same, write-protected"
	" (dirty logging)",
	"3 Phases src: mark marker, tp tracepoint, ioctl KVM ioctl, kprb kprobe,"
	" INF inferred; the pane below has every count of the selected phase",
	"4 GFN: > the intervals covering the cursor time; entry 4K/2M/1G leaf or"
	" pt page table; flags: s start not traced (e.g. a split child), l after"
	" lost events, r value from a resync",
	"Times: ms since the first event; @S.FFFFFF is trace-cmd's clock (seconds,"
	" as trace-cmd report prints it; @NS nanoseconds too)",
};

/* @text flowed into @width columns at blanks, each line after the first indented @indent. */
static int flow(char (*out)[HELP_LINE], int at, int max_lines, size_t width, const char *text,
		size_t indent)
{
	size_t len = strlen(text), pos = 0;
	bool first = true;

	if (!len && at < max_lines)
		out[at++][0] = '\0';
	while (pos < len && at < max_lines) {
		size_t lead = first ? 0 : indent;
		size_t room = width > lead + 8 ? width - lead : 8;
		size_t n = len - pos;

		if (n > room) {	/* the last blank that fits; a word longer than the room goes whole */
			size_t cut = room;

			while (cut > 0 && text[pos + cut] != ' ')
				cut--;
			if (!cut)
				for (cut = room; pos + cut < len && text[pos + cut] != ' '; cut++)
					;
			n = cut;
		}
		snprintf(out[at++], HELP_LINE, "%*s%.*s", (int)lead, "", (int)n, text + pos);
		pos += n;
		while (text[pos] == ' ')
			pos++;
		first = false;
	}
	return at;
}

/**
 * help_text - the help screen's lines at @width columns
 * @out: room for @max_lines lines
 *
 * Returns the number of lines: one entry per key bound (in the requests'
 * order), then the legend.
 */
int help_text(char (*out)[HELP_LINE], int max_lines, size_t width)
{
	char keys[64], line[HELP_LINE];
	int n = 0;

	for (int req = REQ_NONE + 1; req < REQ_NR; req++) {
		if (!keymap_keys(req, keys, sizeof(keys)))
			continue;
		snprintf(line, sizeof(line), "  %-14s %s", keys, request_help(req));
		n = flow(out, n, max_lines, width, line, 17);
	}
	for (size_t i = 0; i < ARRAY_SIZE(legend); i++)
		n = flow(out, n, max_lines, width, legend[i], 4);
	return n;
}
