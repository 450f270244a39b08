#!/usr/bin/env python3
"""make_xplane.py IN.json OUT.xplane.pb: the events of a small JAX trace JSON
as an XSpace protobuf (field numbers of tsl/profiler/protobuf/xplane.proto),
encoded by hand: one plane per process (its process_name), one line per
thread (its thread_name, id = tid, timestamp_ns 1000), each event at
offset_ps = ts in ps - 1000 ns, its args as string stats, except step_num
as an int64 stat (as JAX writes it). Made once for tests/data/jax/tiny.xplane.pb."""
import decimal
import json
import sys


def varint(x):
    x &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = x & 0x7f
        x >>= 7
        out.append(b | (0x80 if x else 0))
        if not x:
            return bytes(out)


def field(num, wt, payload):
    key = varint(num << 3 | wt)
    if wt == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def s(num, text):
    return field(num, 2, text.encode())


def main():
    doc = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)
    ev = doc['traceEvents']
    procs = {e['pid']: e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'process_name'}
    threads = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    space = b''
    for pid, pname in procs.items():
        enames, snames, lines = {}, {}, {}
        def eid(n):
            return enames.setdefault(n, len(enames) + 1)
        def sid(n):
            return snames.setdefault(n, len(snames) + 1)
        for e in ev:
            if e.get('ph') != 'X' or e.get('pid') != pid:
                continue
            ps = int(decimal.Decimal(e['ts']) * 1000000) - 1000 * 1000
            dps = int(decimal.Decimal(e['dur']) * 1000000)
            stats = b''
            for k, v in e.get('args', {}).items():
                if k == 'step_num':
                    stats += field(4, 2, field(1, 0, sid(k)) + field(4, 0, int(v)))
                else:
                    stats += field(4, 2, field(1, 0, sid(k)) + s(5, v))
            lines.setdefault(e['tid'], b'')
            lines[e['tid']] += field(4, 2, field(1, 0, eid(e.get('name', ''))) + field(2, 0, ps) + field(3, 0, dps) + stats)
        plane = field(1, 0, pid) + s(2, pname)
        for tid, evs in lines.items():
            plane += field(3, 2, field(1, 0, tid) + s(2, threads.get((pid, tid), str(tid))) + field(3, 0, 1000) + evs)
        for n, i in enames.items():
            plane += field(4, 2, field(1, 0, i) + field(2, 2, field(1, 0, i) + s(2, n)))
        for n, i in snames.items():
            plane += field(5, 2, field(1, 0, i) + field(2, 2, field(1, 0, i) + s(2, n)))
        space += field(1, 2, plane)
    space += s(4, 'tiny')
    open(sys.argv[2], 'wb').write(space)


main()
