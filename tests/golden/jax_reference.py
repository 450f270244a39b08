#!/usr/bin/env python3
"""jax_reference.py TABLE RUN=FILE...: what perfstudy should find in JAX
profiles, computed from the raw files alone (no perfstudy output).

FILE is the trace JSON jax.profiler writes (<host>.trace.json.gz or
perfetto_trace.json.gz, gzipped or not), or its XSpace protobuf
(<host>.xplane.pb, gzipped or not), read with the small protobuf decoder
below (field numbers from tsl/profiler/protobuf/xplane.proto).

The definitions, as docs/formats.md states them:
- A process (plane) named /device:GPU:N is GPU N; its threads (lines) named
  "Stream #..." are CUDA streams, and every event on one is a GPU activity:
  a memcpy when it has a memcpy_details argument or its name starts with
  "Memcpy", a memset when it has memset_details (any case) or its name
  starts with "Memset", else a kernel. The devices of a file, sorted, are
  ranks 0, 1, ...
- A host (/host:CPU) event with an integer step_num argument is step N,
  from its start for its duration; every rank has the file's steps.
- Times are microseconds in the JSON (decimal text, rounded half away from
  zero to whole ns) and picoseconds in XSpace (line timestamp_ns * 1000 +
  offset_ps, rounded the same way to ns).

TABLE is one of
  steps    run,rank,step,step_us
  groups   run,rank,group,time_us,fraction (summed durations per group of
           the default classification, written here from its rules)
  busy     run,rank,step,busy_us: the union of the rank's activity intervals
           inside the step [start, start + dur)
"""
import csv
import decimal
import gzip
import json
import re
import sys

GROUPS = ['matrix-mul', 'attention', 'communication', 'memory', 'elementwise', 'other']
XLA_COLL = ('all-reduce', 'all_reduce', 'all-gather', 'all_gather', 'reduce-scatter', 'reduce_scatter',
            'all-to-all', 'all_to_all', 'collective-permute', 'collective_permute')
HLO_NAME = re.compile(r'[A-Za-z0-9_.\-]*\Z')


def group_of(kind, name):
    """The default preset: XLA's collectives, the default table, XLA's fusions."""
    if kind != 'kernel':
        return 'memory'
    low = name.lower()
    if any(w in low for w in XLA_COLL) or 'nccl' in low:
        return 'communication'
    if any(w in low for w in ('flash', 'fmha', 'sdpa', 'attention')):
        return 'attention'
    if any(w in low for w in ('gemm', 'nvjet', 'xmma', 'wgmma', 'hmma', 'cutlass', 'cublas')):
        return 'matrix-mul'
    if any(w in low for w in ('copy_device_to_device', 'memcpy', 'memset')):
        return 'memory'
    if 'at::native' in name or any(w in low for w in ('elementwise', 'reduce', 'softmax', 'norm', 'triton')):
        return 'elementwise'
    if HLO_NAME.match(name):
        if 'convolution' in name:
            return 'matrix-mul'
        if 'fusion' in name or name.startswith('wrapped_'):
            return 'elementwise'
    return 'other'


def kind_of(name, args):
    keys = {k.lower() for k in args}
    if 'memcpy_details' in keys or name.startswith('Memcpy'):
        return 'memcpy'
    if 'memset_details' in keys or name.startswith('Memset'):
        return 'memset'
    return 'kernel'


def round_half_away(d):
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def gpu_number(name):
    m = re.fullmatch(r'/device:GPU:(0|[1-9][0-9]{0,2})( .*)?', name, re.S)
    return int(m.group(1)) if m and int(m.group(1)) <= 255 else None


def load_bytes(path):
    with open(path, 'rb') as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b'\x1f\x8b' else data


def read_json(data):
    """-> (activities {device: [(start, end, kind, name)]}, steps [(n, start, dur)])"""
    doc = json.loads(data, parse_float=decimal.Decimal)
    events = doc['traceEvents']
    procs, threads = {}, {}
    for e in events:
        if e.get('ph') != 'M' or 'pid' not in e:
            continue
        label = e.get('args', {}).get('name')
        if e.get('name') == 'process_name':
            procs[e['pid']] = label
        elif e.get('name') == 'thread_name':
            threads[(e['pid'], e.get('tid'))] = label
    acts, steps = {}, []
    for e in events:
        if e.get('ph') != 'X' or 'pid' not in e:
            continue
        pname = procs.get(e['pid'], '')
        ts = round_half_away(decimal.Decimal(e['ts']) * 1000)
        dur = round_half_away(decimal.Decimal(e['dur']) * 1000)
        args = e.get('args', {})
        dev = gpu_number(pname)
        if dev is not None:
            tname = threads.get((e['pid'], e.get('tid')))
            if tname is not None and not tname.startswith('Stream #'):
                continue
            name = e.get('name', '')
            acts.setdefault(dev, []).append((ts, ts + dur, kind_of(name, args), name))
        elif pname == '/host:CPU':
            sn = args.get('step_num')
            if isinstance(sn, str) and re.fullmatch(r'[0-9]+', sn):
                steps.append((int(sn), ts, dur))
    return acts, steps


# --- XSpace: a protobuf decoder of the few messages needed ---

def varint(b, i):
    x = s = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return x, i


def fields(b):
    """(field number, wire type, value) of one message: ints for varints, bytes for length-delimited."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif wt == 1:
            v = int.from_bytes(b[i:i + 8], 'little')
            i += 8
        elif wt == 5:
            v = int.from_bytes(b[i:i + 4], 'little')
            i += 4
        else:
            raise ValueError('wire type %d' % wt)
        yield num, wt, v


def signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def read_xplane(data):
    """XSpace: planes 1. XPlane: name 2, lines 3, event_metadata 4 and stat_metadata 5 (maps
    int64 -> XEventMetadata / XStatMetadata: entries of key 1, value 2; both metadata have name 2)."""
    acts, steps = {}, []
    for num, _, plane in fields(data):
        if num != 1:
            continue
        pname, lines, emeta, smeta = '', [], {}, {}
        for n2, _, v in fields(plane):
            if n2 == 2:
                pname = v.decode()
            elif n2 == 3:
                lines.append(v)
            elif n2 in (4, 5):
                key, val = 0, b''
                for n3, _, v3 in fields(v):
                    if n3 == 1:
                        key = signed(v3)
                    elif n3 == 2:
                        val = v3
                name = ''
                for n4, _, v4 in fields(val):
                    if n4 == 2:
                        name = v4.decode()
                (emeta if n2 == 4 else smeta)[key] = name
        dev = gpu_number(pname)
        host = pname == '/host:CPU'
        if dev is None and not host:
            continue
        for line in lines:
            # XLine: id 1, display_id 10, name 2, display_name 11, timestamp_ns 3, duration_ps 9, events 4
            lname, t0, evs = '', 0, []
            for n2, _, v in fields(line):
                if n2 == 2:
                    lname = v.decode()
                elif n2 == 3:
                    t0 = signed(v)
                elif n2 == 4:
                    evs.append(v)
            if dev is not None and not lname.startswith('Stream #'):
                continue
            for ev in evs:
                # XEvent: metadata_id 1, offset_ps 2, num_occurrences 5, duration_ps 3, stats 4
                mid = off = dps = 0
                stats = {}
                for n2, _, v in fields(ev):
                    if n2 == 1:
                        mid = signed(v)
                    elif n2 == 2:
                        off = signed(v)
                    elif n2 == 3:
                        dps = signed(v)
                    elif n2 == 4:
                        sid, sval = 0, None
                        for n3, wt3, v3 in fields(v):
                            if n3 == 1:
                                sid = signed(v3)
                            elif n3 == 2:  # double_value (fixed64)
                                sval = v3
                            elif n3 in (3, 4):  # uint64_value, int64_value
                                sval = str(v3 if n3 == 3 else signed(v3))
                            elif n3 == 5:  # str_value
                                sval = v3.decode()
                            elif n3 == 7:  # ref_value: a stat metadata id whose name is the value
                                sval = ('ref', v3)
                        stats[smeta.get(sid, '')] = sval
                for k, v in list(stats.items()):
                    if isinstance(v, tuple):
                        stats[k] = smeta.get(v[1], '')
                name = emeta.get(mid, '')
                start_ps = t0 * 1000 + off
                ts = round_half_away(decimal.Decimal(start_ps) / 1000)
                dur = round_half_away(decimal.Decimal(dps) / 1000)
                if dev is not None:
                    acts.setdefault(dev, []).append((ts, ts + dur, kind_of(name, stats), name))
                else:
                    sn = stats.get('step_num')
                    if isinstance(sn, str) and re.fullmatch(r'[0-9]+', sn):
                        steps.append((int(sn), ts, dur))
    return acts, steps


def read(path):
    data = load_bytes(path)
    if data.lstrip()[:1] == b'{':
        return read_json(data)
    return read_xplane(data)


def union_in(intervals, lo, hi):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted((max(s, lo), min(e, hi)) for s, e in intervals):
        if e <= s:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def us(ns):
    return '%s%d.%03d' % ('-' if ns < 0 else '', abs(ns) // 1000, abs(ns) % 1000)


def main():
    table, runs = sys.argv[1], [a.split('=', 1) for a in sys.argv[2:]]
    w = csv.writer(sys.stdout, lineterminator='\n')
    header = {'steps': ['run', 'rank', 'step', 'step_us'],
              'groups': ['run', 'rank', 'group', 'time_us', 'fraction'],
              'busy': ['run', 'rank', 'step', 'busy_us']}[table]
    w.writerow(header)
    for run, path in runs:
        acts, steps = read(path)
        steps.sort(key=lambda s: (s[1], s[0]))
        for rank, dev in enumerate(sorted(acts)):
            a = acts[dev]
            if table == 'steps':
                for n, s, d in steps:
                    w.writerow([run, rank, n, us(d)])
            elif table == 'busy':
                for n, s, d in steps:
                    w.writerow([run, rank, n, us(union_in([(x[0], x[1]) for x in a], s, s + d))])
            else:
                tot = {g: 0 for g in GROUPS}
                for s, e, k, name in a:
                    tot[group_of(k, name)] += e - s
                all_ns = sum(tot.values())
                for g in GROUPS:
                    w.writerow([run, rank, g, us(tot[g]), '%.6f' % (tot[g] / all_ns if all_ns else 0.0)])


if __name__ == '__main__':
    main()
