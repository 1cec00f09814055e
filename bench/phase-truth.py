#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Dirty-log steps found right, per capture, against the capture's own truth.

    bench/phase-truth.py [--msc build/mmuscope] [--work DIR] [--why] [--tap] TRACE_DIR...

The truth of a capture is what the kernel or the workload said: the
workload's step markers (phase=NAME begin/end: enable_dirty_logging,
get_dirty_log_N, clear_dirty_log_N, reset_dirty_rings_N (the dirty ring's),
disable_dirty_logging), or, without
markers, the KVM ioctls it traced (the phases they bound).  Each capture is
then analysed as inference alone would see it, its ioctl and kprobe events
left out of its text dump (`mmuscope dump` -> `import --text`), at its own
speed, with every time multiplied by 10 (a slow emulator) and divided by
100 (a fast host).  A step's changes are its task's inside its bounds (not
a vCPU's, nor a task aging pages meanwhile).  A step is right when the
kernel phases that meet it hold >= 95% of its SPTE changes, span its first
and last, are of its kind, and
none of them holds changes of another step.  It prints one row per capture
and a total (`make bench-phases`); with --tap, the gate of `make check`
(tests/cli/phase-truth.sh): every step right as captured and by inference
alone at every speed, and the same phases at every speed.
"""
import argparse
import os
import re
import sqlite3
import subprocess
import sys

STEP = re.compile(r'^(enable_dirty_logging|disable_dirty_logging|get_dirty_log_\d+|'
                  r'clear_dirty_log_\d+|reset_dirty_rings_\d+)$')
KIND = {'enable': 'enable', 'disable': 'disable', 'get': 'harvest', 'clear': 'harvest',
        'reset': 'harvest'}
DIRTY = ('enable', 'harvest', 'disable')
SCALES = (1, 10, 0.01)


def changes(db):
    """The seq of every SPTE change, sorted, and the task of each."""
    rows = db.execute('select seq, pid from spte_change order by seq').fetchall()
    return [r[0] for r in rows], dict(rows)


def within(seqs, lo, hi):
    import bisect
    return seqs[bisect.bisect_right(seqs, lo):bisect.bisect_left(seqs, hi + 1)]


def truth_steps(db):
    """[(kind, name, start_seq, end_seq, pid, vm)] from markers, else from the
    ioctls; pid is the task that wrote the marker or made the call: a step's
    changes are its task's (not a vCPU's, nor another task's, aging pages);
    vm the VM the analyzer placed the marker or call in."""
    rows = db.execute("select p.name, p.start_seq, p.end_seq, m.pid, p.vm from phase p, marker m "
                      "where p.kind = 'workload' and p.source = 'marker' and m.seq = p.start_seq "
                      "order by p.id").fetchall()
    steps = [(KIND[n.split('_')[0]], n, a, b, t, v) for n, a, b, t, v in rows if STEP.match(n)]
    if steps:
        return steps, 'markers'
    rows = db.execute("select p.kind, p.name, p.start_seq, p.end_seq, i.pid, p.vm from phase p, "
                      "ioctl i where p.source = 'ioctl' and p.kind in ('enable', 'harvest', "
                      "'disable') and i.seq = p.start_seq order by p.id").fetchall()
    return rows, 'ioctls' if rows else 'none'


def at_once(steps):
    """Do the steps of two VMs interleave (VMs at once, not one after the other)?"""
    span = {}
    for st in steps:
        lo, hi = span.get(st[5], (st[2], st[3]))
        span[st[5]] = (min(lo, st[2]), max(hi, st[3]))
    s = sorted(span.values())
    return any(s[i + 1][0] < s[i][1] for i in range(len(s) - 1))


def step_changes(seqs, pids, step):
    """The changes of @step: in its bounds, by its task."""
    return [s for s in within(seqs, step[2], step[3]) if pids[s] == step[4]]


def score(steps, seqs, pids, phases, wrong=None):
    """Steps right: the phases of its VM meeting a step hold >= 95% of its
    changes, span them, are of its kind, and hold no other step's changes of
    that VM.  The names of the others go into @wrong."""
    right = 0
    sets = [set(step_changes(seqs, pids, st)) for st in steps]
    for i, (kind, _, a, b, _, vm) in enumerate(steps):
        mine = sets[i]
        meet = [p[:3] for p in phases if p[1] <= b and p[2] >= a and p[3] == vm]
        held = set()
        ok = True
        for k, s, e in meet:
            got = set(within(seqs, s, e))
            if got & mine and k != kind:
                ok = False
            if any(got & sets[j] for j in range(len(steps)) if j != i and steps[j][5] == vm) \
                    and got & mine:
                ok = False
            held |= got & mine
        if mine and len(held) < 0.95 * len(mine):
            ok = False
        if mine and not (any(s <= min(mine) <= e for k, s, e in meet) and
                         any(s <= max(mine) <= e for k, s, e in meet)):
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
    ap.add_argument('--tap', action='store_true',
                    help="print TAP: every step right, the same phases at every speed")
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    total = [0] * 5
    tap = Tap() if a.tap else None
    if not tap:
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
        seqs, pids = changes(db)
        past = db.execute("select count(*) from phase r, phase t where r.kind = 're-promotion' "
                          "and t.kind = 'teardown' and r.start_seq < t.start_seq "
                          "and r.end_seq >= t.start_seq").fetchone()[0]
        as_is = score(steps, seqs, pids, db.execute(
            "select kind, start_seq, end_seq, vm from phase where kind in ('enable', 'harvest', "
            "'disable') order by id").fetchall())
        dump = run([a.msc, 'dump', base + '.db']).stdout.decode().splitlines()
        row = [name, src, len(steps), as_is]
        tables = []
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
            iseqs, ipids = changes(idb)
            remap = dict(zip(seqs, iseqs))
            isteps = []
            for k, n, s, e, t, v in steps:
                c = step_changes(seqs, pids, (k, n, s, e, t, v))
                # without the ioctls one analysis: VMs at once are not told apart
                if c:
                    isteps.append((k, n, remap[c[0]], remap[c[-1]], t, 0))
                else:
                    isteps.append((k, n, 0, -1, t, 0))
            wrong = []
            got = score(isteps, iseqs, ipids, idb.execute(
                "select kind, start_seq, end_seq, 0 from phase where kind in ('enable', "
                "'harvest', 'disable') order by id").fetchall(), wrong)
            if a.why and wrong:
                print('%s x%g: %s' % (name, f, ' '.join(wrong)), file=sys.stderr)
            tables.append(idb.execute(
                "select kind, source, name, start_seq, end_seq, spte_changes, classes from phase "
                "where kind <> 'workload' order by id").fetchall())
            idb.close()
            row.append(got)
        db.close()
        total = [t + v for t, v in zip(total, row[2:])]
        if tap:
            n = len(steps)
            tap.check(as_is == n, '%s: %d/%d steps right as captured (%s)' % (name, as_is, n, src))
            if at_once(steps):
                # only their ioctls tell VMs at once apart (docs/kvm-mmu.md, "VMs at once")
                tap.check(True, '%s: # SKIP inferred alone: VMs at once, told apart by their '
                          'ioctls' % name)
            else:
                tap.check(row[4:] == [n] * 3, '%s: inferred alone, steps right at x1, x10, '
                          '/100: %s of %d' % (name, ', '.join(map(str, row[4:])), n))
            tap.check(tables[1] == tables[0] and tables[2] == tables[0],
                      '%s: the same phases at x1, x10 and /100' % name)
            tap.check(not past, '%s: no re-promotion runs past the teardown after it' % name)
        else:
            print('| ' + ' | '.join(str(v) for v in row) + ' |')
        sys.stdout.flush()
    if tap:
        return tap.done()
    print('| all | | ' + ' | '.join(str(v) for v in total) + ' |')
    return 0


class Tap:
    """TAP lines as tests/cli/lib.sh prints them."""
    def __init__(self):
        self.n = self.failed = 0

    def check(self, good, desc):
        self.n += 1
        self.failed += not good
        print('%s %d - %s' % ('ok' if good else 'not ok', self.n, desc))

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0


if __name__ == '__main__':
    sys.exit(main())
