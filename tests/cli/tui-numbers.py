#!/usr/bin/env python3
"""tui-numbers.py REF_DIR DIR...: every number on the screens of each DIR is
whole: one the reference screens (the same scripts at 400 columns) show, or
that number with fewer decimals, or with a K/M/G suffix, or '#'s (too wide
for its column); and its unit is whole (not the 'm' of 'ms').  Prints each
number that is none of these, and exits 1."""
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


def main():
    ref_dir, dirs = sys.argv[1], sys.argv[2:]
    bad = 0
    for d in dirs:
        for name in sorted(os.listdir(d)):
            ref = set(tokens(os.path.join(ref_dir, name)))
            ref_values = []
            for r in ref:
                m = NUM.match(r)
                if m:
                    ref_values.append(value(m.group(1)))
            ref_units = units(os.path.join(ref_dir, name))
            for t, nxt in words(os.path.join(d, name)):
                if not t[0].isdigit():
                    continue
                if not whole(t, ref, ref_values):
                    print(f'{d}/{name}: {t!r} is not a whole number of the screen')
                    bad += 1
                elif nxt.isalpha() and nxt not in WHOLE and \
                        any(u.startswith(nxt) and u != nxt for u in ref_units | WHOLE):
                    print(f'{d}/{name}: {t} {nxt!r}: its unit is cut')
                    bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
