#!/usr/bin/env python3
"""Damaged copies of a trace.dat, for tests/cli/hostile.sh and `make fuzz`.

Usage: mutate.py INPUT OUTDIR named            the named crashers below
       mutate.py INPUT OUTDIR families SEED N  N of each structure-aware family
                                               (instances, uname, zstd chunks)
       mutate.py INPUT OUTDIR page-time        an uncompressed capture's page
                                               at 2^64-1 ns
       mutate.py INPUT OUTDIR random SEED N    N seeded mutants (1-8 bytes of
                                               the first 64 KiB: the headers,
                                               formats and options)
       mutate.py INPUT OUTDIR data SEED N      N seeded mutants, 1-8 bytes
                                               anywhere (the CPUs' data too)
       mutate.py INPUT OUTDIR db SEED N        N seeded mutants of an SQLite
                                               database: 1-64 bytes anywhere
                                               but its first 100 (the header
                                               SQLite checks itself)

The named cases are the damage that crashed libtracecmd/libtraceevent inside
`mmuscope import` before it read trace.dat files in a child process: each is
built from the v7 header of INPUT, so any v7 capture serves.
"""
import os
import random
import struct
import sys


def header(data):
    """Offsets of the v7 header fields: page size, first section offset
    (trace-cmd.dat(5))."""
    end = data.index(b'\0', 10)        # "\x17\x08Dtracing" then the version string
    page = end + 3                      # endian byte, long-size byte
    comp = data.index(b'\0', page + 4)  # compression name, then its version
    return page, data.index(b'\0', comp + 1) + 1


def options(data, first):
    """(offset, id, size) of each option along the chain of options
    sections from the header's first section offset (little-endian)."""
    off = struct.unpack_from('<Q', data, first)[0]
    found = []
    while off:
        size = struct.unpack_from('<Q', data, off + 8)[0]
        p, end, off = off + 16, off + 16 + size, 0
        while p < end:
            oid, osz = struct.unpack_from('<HI', data, p)
            found.append((p, oid, osz))
            if oid == 0:
                off = struct.unpack_from('<Q', data, p + 6)[0]
                break
            p += 6 + osz
    return found


def buffer_cpus(data, first):
    """Offset of the first BUFFER option's CPU count, then of its CPU table."""
    p = next(p for p, oid, _ in options(data, first) if oid == 3) + 6 + 8
    p = data.index(b'\0', p) + 1      # instance name
    p = data.index(b'\0', p) + 1      # clock
    return p + 4, p + 8


def uname_escapes(data, first):
    """The UNAME option's host name and release (after its "N.N.N") with
    terminal escapes, the same lengths: a title, a colour, a clear."""
    p, _, size = next(o for o in options(data, first) if o[1] == 5)
    words = data[p + 6:p + 6 + size].split(b' ')
    host, rel = len(words[1]), len(words[2])
    words[1] = (b'\x1b]0;X\x07' + b'X' * host)[:host]
    words[2] = (words[2][:5] + b'\x1b[31m\x1b[2J' + b'X' * rel)[:rel]
    b = bytearray(data)
    b[p + 6:p + 6 + size] = b' '.join(words)
    return bytes(b)


def add_instances(data, names, top_empty=False):
    """trace-cmd instance buffers (`trace-cmd record -B NAME`), laid out as
    trace-cmd does: each a copy of the top buffer's section (its CPUs'
    data inside, at the same page offsets) appended to the file, and a
    BUFFER option naming it in one more options section, chained from the
    last OPTION DONE.  @top_empty: the top buffer's CPUs say 0 bytes, so
    the events are only in the instances."""
    page, first = header(data)
    opts = options(data, first)
    p, _, size = next(o for o in opts if o[1] == 3)
    opt = data[p + 6:p + 6 + size]
    boff = struct.unpack_from('<Q', opt, 0)[0]
    bsize = struct.unpack_from('<Q', data, boff + 8)[0] + 16
    count, table = buffer_cpus(data, first)
    cpus = struct.unpack_from('<I', data, count)[0]
    pagesz = struct.unpack_from('<I', data, page)[0]
    rest = opt[table - (p + 6):]     # after the name: ... the clock, page size, count
    head = opt[8:opt.index(b'\0', 8)]
    clock = opt[len(head) + 9:table - (p + 6) - 8]
    b = bytearray(data)
    if top_empty:
        for i in range(cpus):
            struct.pack_into('<Q', b, table + 20 * i + 12, 0)
    new_opts = b''
    for name in names:
        at = len(b) + (boff - len(b)) % pagesz   # the section's page offset kept
        b += b'\0' * (at - len(b)) + data[boff:boff + bsize]
        entries = b''
        for i in range(cpus):
            cpu, off, sz = struct.unpack_from('<IQQ', data, table + 20 * i)
            entries += struct.pack('<IQQ', cpu, off + at - boff, sz)
        body = (struct.pack('<Q', at) + name.encode() + b'\0' + clock +
                opt[table - (p + 6) - 8:table - (p + 6)] + entries)
        new_opts += struct.pack('<HI', 3, len(body)) + body
    new_opts += struct.pack('<HIQ', 0, 8, 0)
    sec = len(b)
    last_hdr = struct.unpack_from('<HHIQ', data, struct.unpack_from('<Q', data, first)[0])
    b += struct.pack('<HHIQ', 0, 0, last_hdr[2], len(new_opts)) + new_opts
    done = [q for q, oid, _ in opts if oid == 0][-1]
    struct.pack_into('<Q', b, done + 6, sec)
    return bytes(b)


def zstd_compress(b):
    """zstd's frame of @b, by the libzstd trace-cmd itself links (ctypes: no
    Python module needed)."""
    import ctypes
    z = ctypes.CDLL('libzstd.so.1')
    z.ZSTD_compressBound.restype = ctypes.c_size_t
    z.ZSTD_compress.restype = ctypes.c_size_t
    z.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_size_t, ctypes.c_int]
    cap = z.ZSTD_compressBound(len(b))
    out = ctypes.create_string_buffer(cap)
    n = z.ZSTD_compress(out, cap, b, len(b), 3)
    return out.raw[:n]


def compress_options(data, patch=None, frame=None):
    """The options section holding the BUFFER option, rewritten compressed
    (section flag 1, then the compressed size, the size and zstd's frame:
    libtracecmd's tracecmd_uncompress_block()), appended to the file and
    chained in where the plain one was.  @patch(body, at): damage the plain
    body first (@at: the body's offset in the file); @frame(bytes): damage
    the compressed frame."""
    _, first = header(data)
    secs, off, prev = [], struct.unpack_from('<Q', data, first)[0], first
    while off:
        size, strid = struct.unpack_from('<Q', data, off + 8)[0], data[off + 4:off + 8]
        secs.append((off, size, prev, strid))
        p, end, off = off + 16, off + 16 + size, 0
        while p < end:
            oid, osz = struct.unpack_from('<HI', data, p)
            if oid == 0:
                prev, off = p + 6, struct.unpack_from('<Q', data, p + 6)[0]
                break
            p += 6 + osz
    bp = next(p for p, oid, _ in options(data, first) if oid == 3)
    at, size, ptr, strid = next(s for s in secs if s[0] + 16 <= bp < s[0] + 16 + s[1])
    body = bytearray(data[at + 16:at + 16 + size])
    if patch:
        patch(body, at + 16)
    c = zstd_compress(bytes(body))
    if frame:
        c = frame(c)
    b = bytearray(data)
    new = len(b)
    b += struct.pack('<HH', 0, 1) + strid + struct.pack('<QII', 8 + len(c), len(c), len(body)) + c
    struct.pack_into('<Q', b, ptr, new)
    return bytes(b)


def zstd_decompress(b, size):
    import ctypes
    z = ctypes.CDLL('libzstd.so.1')
    z.ZSTD_decompress.restype = ctypes.c_size_t
    z.ZSTD_decompress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                  ctypes.c_size_t]
    out = ctypes.create_string_buffer(size)
    n = z.ZSTD_decompress(out, size, b, len(b))
    return out.raw[:n]


def chunk_short(data, last=False):
    """A zstd capture whose CPU with the most chunks has one (its middle
    one, or its last) whose frame holds half the pages the chunk says: the
    frame re-made of the first half, a skippable frame filling the rest of
    its place, so that every other chunk stays where it was
    (tracecmd_uncompress_chunk(): compressed size, size, frame)."""
    _, first = header(data)
    count, table = buffer_cpus(data, first)
    best = None
    for i in range(struct.unpack_from('<I', data, count)[0]):
        _, off, _ = struct.unpack_from('<IQQ', data, table + 20 * i)
        chunks, p = [], off + 4
        for _ in range(struct.unpack_from('<I', data, off)[0]):
            cs, us = struct.unpack_from('<II', data, p)
            chunks.append((p, cs, us))
            p += 8 + cs
        if not best or len(chunks) > len(best):
            best = chunks
    p, cs, us = best[-1] if last else best[len(best) // 2]
    page = struct.unpack_from('<I', data, header(data)[0])[0]
    half = zstd_decompress(data[p + 8:p + 8 + cs], us)[:us // page // 2 * page]
    c = zstd_compress(half)
    pad = cs - len(c) - 8
    b = bytearray(data)
    b[p + 8:p + 8 + cs] = c + struct.pack('<II', 0x184D2A50, pad) + bytes(pad)
    return bytes(b)


def page_time(data):
    """An uncompressed capture (synth --compression none) whose CPU 0's
    fourth page says it began at 2^64-1 ns."""
    page, first = header(data)
    _, table = buffer_cpus(data, first)
    off = struct.unpack_from('<Q', data, table + 4)[0]
    pagesz = struct.unpack_from('<I', data, page)[0]
    b = bytearray(data)
    struct.pack_into('<Q', b, off + 3 * pagesz, 2**64 - 1)
    return bytes(b)


def families(data, seed, n):
    """N seeded files of each structure-aware family, laid out consistently
    so that the damage reaches the layer it aims at: instance buffers (1-4,
    random names, the top one empty or not), a uname with random control
    bytes, a zstd chunk count from 2^28 to 2^32-1."""
    rng = random.Random(seed)
    page, first = header(data)
    _, table = buffer_cpus(data, first)
    off0 = struct.unpack_from('<Q', data, table + 4)[0]
    cases = {}
    for i in range(n):
        names = ['i%d%s' % (k, ''.join(rng.choice('abcxyz_-') for _ in range(rng.randrange(1, 12))))
                 for k in range(rng.randrange(1, 5))]
        cases[f'fam-instances-{seed}-{i}'] = add_instances(data, names, rng.random() < 0.5)
        b = bytearray(uname_escapes(data, first))
        p, _, size = next(o for o in options(data, first) if o[1] == 5)
        for _ in range(rng.randrange(1, 6)):
            b[p + 6 + rng.randrange(size - 1)] = rng.choice(list(range(1, 32)) + [127])
        cases[f'fam-uname-{seed}-{i}'] = bytes(b)
        b = bytearray(data)
        struct.pack_into('<I', b, off0, rng.randrange(1 << 28, 1 << 32))
        cases[f'fam-chunks-{seed}-{i}'] = bytes(b)
    return cases


def named(data):
    page, first = header(data)

    def patch(at, fmt, *values):
        b = bytearray(data)
        struct.pack_into(fmt, b, at, *values)
        return bytes(b)

    count, table = buffer_cpus(data, first)
    off0, size0 = struct.unpack_from('<QQ', data, table + 4)
    done = [p for p, oid, _ in options(data, first) if oid == 0]
    meta = {oid: p for p, oid, _ in options(data, first) if 16 <= oid <= 21}
    def in_body(at, fmt, *values):    # a patch of the file at @at, made in a section's body
        return lambda body, start: struct.pack_into(fmt, body, at - start, *values)

    return {
        # compressed options sections: read by libtracecmd, checked the same
        'options-compressed': compress_options(data),
        # a zstd chunk that holds half its pages: marked lost where they were
        'zstd-chunk-short': chunk_short(data),
        'zstd-chunk-short-last': chunk_short(data, last=True),
        'options-compressed-overlap': compress_options(data, in_body(table + 20 + 4, '<Q',
                                                                     off0 + size0 // 2)),
        'options-compressed-cpu-id': compress_options(data, in_body(table, '<I', 65537)),
        'options-compressed-frame': compress_options(data, frame=lambda c: c[:8] + bytes(
            len(c) - 8)),
        'uname-escapes': uname_escapes(data, first),        # the terminal retitled
        'zstd-chunk-count-huge': patch(off0, '<I', 0xffffffff),  # 64 GiB asked of malloc
        'instances-2': add_instances(data, ['kvm', 'other']),
        'instance-only': add_instances(data, ['kvm'], top_empty=True),
        'page-size-0': patch(page, '<I', 0),                # SIGFPE
        'cut-in-first-offset': data[:first + 3],            # double free
        'cpu-id-65537': patch(table, '<I', 65537),          # 65,538 CPUs, 450x the time
        'cpu-count-huge': patch(count, '<I', 1 << 20),
        'cpu-data-past-end': patch(table + 4, '<Q', len(data) - 100),
        'cpu-data-overlap': patch(table + 20 + 4, '<Q', off0 + size0 // 2),
        'options-loop': patch(done[-1] + 6, '<Q', struct.unpack_from('<Q', data, first)[0]),
        'sections-overlap': patch(meta[16] + 6, '<Q',               # HEADERS -> FTRACE EVENTS
                                  struct.unpack_from('<Q', data, meta[17] + 6)[0]),
    }


def main():
    src, out, mode = sys.argv[1:4]
    data = open(src, 'rb').read()
    os.makedirs(out, exist_ok=True)
    if mode == 'named':
        cases = named(data)
    elif mode == 'families':
        cases = families(data, int(sys.argv[4]), int(sys.argv[5]))
    elif mode == 'page-time':
        cases = {'page-time-max': page_time(data)}
    else:
        rng = random.Random(int(sys.argv[4]))
        first, end, counts = {
            'random': (0, min(len(data), 65536), (1, 1, 2, 4, 8)),
            'data': (0, len(data), (1, 1, 2, 4, 8)),
            'db': (100, len(data), (1, 2, 8, 16, 64)),
        }[mode]
        cases = {}
        for i in range(int(sys.argv[5])):
            b = bytearray(data)
            for _ in range(rng.choice(counts)):
                b[rng.randrange(first, end)] = rng.randrange(256)
            cases[f'{mode}-{sys.argv[4]}-{i}'] = bytes(b)
    ext = '.db' if mode == 'db' else '.dat'
    for name, b in cases.items():
        with open(os.path.join(out, name + ext), 'wb') as f:
            f.write(b)


main()
