#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Dirty-log steps found right, per capture, against the capture's own truth.

    bench/phase-truth.py [--msc build/mmuscope] [--work DIR] [--why] TRACE_DIR...

The truth of a capture is what the kernel or the workload said: the
workload's step markers (phase=NAME begin/end: enable_dirty_logging,
get_dirty_log_N, clear_dirty_log_N, disable_dirty_logging), or, without
markers, the KVM ioctls it traced (the phases they bound).  Each capture is
then analysed as inference alone would see it, its ioctl and kprobe events
left out of its text dump (`mmuscope dump` -> `import --text`), at its own
speed, with every time multiplied by 10 (a slow emulator) and divided by
100 (a fast host).  A step is right when the kernel phases that meet it hold
>= 95% of its SPTE changes, are of its kind, and none of them holds changes
of another step.  It prints one row per capture and a total: what issue 34's
gate asks of the phase detector, measured, not asserted (a timing-free
detector gives the same three columns).
"""
import argparse
import os
import re
import sqlite3
import subprocess
import sys

STEP = re.compile(r'^(enable_dirty_logging|disable_dirty_logging|get_dirty_log_\d+|'
                  r'clear_dirty_log_\d+)$')
KIND = {'enable': 'enable', 'disable': 'disable', 'get': 'harvest', 'clear': 'harvest'}
DIRTY = ('enable', 'harvest', 'disable')
SCALES = (1, 10, 0.01)


def changes(db):
    """The seq of every SPTE change, sorted."""
    return [r[0] for r in db.execute('select seq from spte_change order by seq')]


def within(seqs, lo, hi):
    import bisect
    return seqs[bisect.bisect_right(seqs, lo):bisect.bisect_left(seqs, hi + 1)]


def truth_steps(db):
    """[(kind, name, start_seq, end_seq)] from markers, else from the ioctls."""
    rows = db.execute("select name, start_seq, end_seq from phase where kind = 'workload' "
                      "and source = 'marker' order by id").fetchall()
    steps = [(KIND[n.split('_')[0]], n, a, b) for n, a, b in rows if STEP.match(n)]
    if steps:
        return steps, 'markers'
    rows = db.execute("select kind, name, start_seq, end_seq from phase where source = 'ioctl' "
                      "and kind in ('enable', 'harvest', 'disable') order by id").fetchall()
    return [(k, n, a, b) for k, n, a, b in rows], 'ioctls' if rows else 'none'


def score(steps, seqs, phases, wrong=None):
    """Steps right: the phases meeting a step hold >= 95% of its changes, are of
    its kind, and hold no other step's changes.  The names of the others go
    into @wrong."""
    right = 0
    sets = [set(within(seqs, a, b)) for _, _, a, b in steps]
    for i, (kind, _, a, b) in enumerate(steps):
        mine = sets[i]
        meet = [p for p in phases if p[1] <= b and p[2] >= a]
        held = set()
        ok = True
        for k, s, e in meet:
            got = set(within(seqs, s, e))
            if got & mine and k != kind:
                ok = False
            if any(got & sets[j] for j in range(len(steps)) if j != i) and got & mine:
                ok = False
            held |= got & mine
        if mine and len(held) < 0.95 * len(mine):
            ok = False
        right += ok
        if not ok and wrong is not None:
            wrong.append(steps[i][1])
    return right


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--msc', default='build/mmuscope')
    ap.add_argument('--work', default='build/phase-truth')
    ap.add_argument('--why', action='store_true', help='name the wrong steps on stderr')
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    total = [0] * 5
    print('| capture | truth | steps | right as captured | inferred alone: x1 | x10 | /100 |')
    print('|---|---|---:|---:|---:|---:|---:|')
    for d in a.dirs:
        name = os.path.basename(os.path.normpath(d))
        trace = os.path.join(d, 'trace.dat')
        if not os.path.exists(trace):
            continue
        base = os.path.join(a.work, name)
        run([a.msc, 'import', '-q', '--force', trace, '-o', base + '.db'])
        db = sqlite3.connect(base + '.db')
        steps, src = truth_steps(db)
        if not steps:
            continue
        seqs = changes(db)
        as_is = score(steps, seqs, db.execute(
            "select kind, start_seq, end_seq from phase where kind in ('enable', 'harvest', "
            "'disable') order by id").fetchall())
        dump = run([a.msc, 'dump', base + '.db']).stdout.decode().splitlines()
        row = [name, src, len(steps), as_is]
        for i, f in enumerate(SCALES):
            out = []
            for line in dump:
                w = line.split(' ', 4)
                if line.startswith('#') or len(w) < 4 or not w[0].isdigit():
                    out.append(line)
                elif w[3] not in ('ioctl', 'kprobe'):
                    w[0] = '%.0f' % (int(w[0]) * f)
                    out.append(' '.join(w))
            with open(base + '.txt', 'w') as fh:
                fh.write('\n'.join(out) + '\n')
            run([a.msc, 'import', '-q', '--force', '--text', base + '.txt', '-o', base + '.i.db'])
            idb = sqlite3.connect(base + '.i.db')
            # the text has fewer events: seqs renumber, so steps map by time order of changes
            iseqs = changes(idb)
            remap = dict(zip(seqs, iseqs))
            isteps = []
            for k, n, s, e in steps:
                c = within(seqs, s, e)
                if c:
                    isteps.append((k, n, remap[c[0]], remap[c[-1]]))
                else:
                    isteps.append((k, n, 0, -1))
            wrong = []
            got = score(isteps, iseqs, idb.execute(
                "select kind, start_seq, end_seq from phase where kind in ('enable', "
                "'harvest', 'disable') order by id").fetchall(), wrong)
            if a.why and wrong:
                print('%s x%g: %s' % (name, f, ' '.join(wrong)), file=sys.stderr)
            idb.close()
            row.append(got)
        db.close()
        total = [t + v for t, v in zip(total, row[2:])]
        print('| ' + ' | '.join(str(v) for v in row) + ' |')
        sys.stdout.flush()
    print('| all | | ' + ' | '.join(str(v) for v in total) + ' |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
