#!/usr/bin/env python3
"""tui-numbers.py REF_DIR DIR...: every number on the screens of each DIR is
whole: one the reference screens (the same scripts at 400 columns) show, or
that number with fewer decimals, or with a K/M/G suffix, or '#'s (too wide
for its column); and its unit is whole (not the 'm' of 'ms').  And no line
is cut at the screen's edge from 80 columns on (a DIR named COLSxLINES
gives the width): a
line that reaches the last column or the one before it, and that the same
screen at 400 columns goes on with more words, lost them off the edge
(the 'TLB flushes' whose count is gone).  A table that leaves out whole
columns is fine: what follows it there is column padding (two blanks or
more).  Prints each number or line that is none of these, and exits 1."""
import os
import re
import sys

# words that follow a number and are whole (a shorter word that begins one
# of these, like the 'm' of 'ms', is a cut unit)
WHOLE = {'ns', 'us', 'ms', 's', 'KiB', 'MiB', 'GiB', 'TiB', 'K', 'M', 'G', 'x', 'in', 'of', 'to',
         'on', 'at', 'and', 'or', 'for', 'pages', 'events', 'huge', 'gaps', 'split', 'zaps'}
NUM = re.compile(r'^(\d[\d,]*(?:\.\d+)?)([KMGT]?)')


def words(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            # a time axis's whole labels ("|0s   |0.5s   |1s") are ticks the width
            # chooses; a label cut ("|60") is checked
            if re.fullmatch(r'\s*(\|\d+(\.\d+)?(ns|us|ms|s)\s*)+', line):
                continue
            ws = [w.strip(',') for w in re.split(r'[\s()\[\]:;=|<>]+', line)]
            ws = [w for w in ws if w]
            for i, w in enumerate(ws):
                yield w, ws[i + 1] if i + 1 < len(ws) else ''


def tokens(path):
    return (w for w, _ in words(path) if w[0].isdigit())


def units(path):
    """the words that follow numbers"""
    return {n for w, n in words(path) if w[0].isdigit() and n.isalpha()}


def value(num):
    return float(num.replace(',', ''))


def grouped(num):
    """1,234,567 has groups of three; 262,14 does not."""
    int_part = num.split('.')[0]
    return ',' not in int_part or re.fullmatch(r'\d{1,3}(,\d{3})+', int_part)


def whole(t, ref, ref_values):
    if t in ref or set(t) == {'#'}:
        return True
    m = NUM.match(t)
    if not m or not grouped(m.group(1)):
        return False
    num, suffix = m.group(1), m.group(2)
    v = value(num) * {'': 1, 'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[suffix]
    dec = len(num.split('.')[1]) if '.' in num else 0
    # a reference number it rounds (fewer decimals, or a suffix)
    tol = 0.5 * 10 ** -dec * {'': 1, 'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[suffix] + 1e-9
    return any(abs(r - v) <= tol for r in ref_values)


def lines(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return [line.rstrip('\n').rstrip() for line in f]


def cut_lines(path, ref_path, cols):
    """the lines of path cut at column cols: a longer line of ref_path
    begins with them and goes on with words (not column padding, not more
    of a chart's rules), which the next line does not carry on with (a
    line flowed onto the next is whole)"""
    ref = lines(ref_path)
    mine = lines(path)
    for i, line in enumerate(mine):
        if len(line) < cols - 1 or not line.strip():
            continue
        after = mine[i + 1].strip() if i + 1 < len(mine) else ''
        for r in ref:
            rest = r[len(line):]
            if not r.startswith(line) or not re.search(r'[0-9A-Za-z]', rest[:40]) or \
                    rest.startswith('  ') or line.endswith('  '):
                continue
            word = rest.strip(' ,;').split(' ')[0]
            if after.startswith(word):
                continue
            yield line, rest
            break
def main():
    ref_dir, dirs = sys.argv[1], sys.argv[2:]
    bad = 0
    for d in dirs:
        size = re.fullmatch(r'(\d+)x(\d+)', os.path.basename(d.rstrip('/')))
        for name in sorted(os.listdir(d)):
            # from 80 columns on, the size the screens are laid out for
            if size and int(size.group(1)) >= 80:
                for line, rest in cut_lines(os.path.join(d, name), os.path.join(ref_dir, name),
                                            int(size.group(1))):
                    print(f'{d}/{name}: cut at the edge: {line[-30:]!r} (it goes on: {rest.strip()[:30]!r})')
                    bad += 1
            ref = set(tokens(os.path.join(ref_dir, name)))
            ref_values = []
            for r in ref:
                m = NUM.match(r)
                if m:
                    ref_values.append(value(m.group(1)))
            ref_units = units(os.path.join(ref_dir, name))
            ref_pairs = set(words(os.path.join(ref_dir, name)))
            for t, nxt in words(os.path.join(d, name)):
                if not t[0].isdigit():
                    continue
                if not whole(t, ref, ref_values):
                    print(f'{d}/{name}: {t!r} is not a whole number of the screen')
                    bad += 1
                elif nxt.isalpha() and nxt not in WHOLE and (t, nxt) not in ref_pairs and \
                        any(u.startswith(nxt) and u != nxt for u in ref_units | WHOLE):
                    print(f'{d}/{name}: {t} {nxt!r}: its unit is cut')
                    bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
