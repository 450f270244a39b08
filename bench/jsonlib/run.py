#!/usr/bin/env python3
"""run.py - run the bench programs on traces and summarize.

    run.py [-n RUNS] [--raw FILE] PROG... -- TRACE...

Runs are interleaved (run 1 of every program, then run 2, ...) so drift on a
shared machine hits all programs alike. Prints per trace and overall: median
MB/s (10^6 bytes of uncompressed JSON per second of parse+walk+free), median
inflate seconds, peak RSS (largest ru_maxrss seen), and whether the checksums
of all programs agree; where they differ, which fields and which programs.
"""
import argparse
import collections
import os
import statistics
import subprocess
import sys


def run_one(prog, trace):
    p = subprocess.run([prog, trace], capture_output=True, text=True)
    if p.returncode != 0:
        return {"lib": os.path.basename(prog), "fail": (p.stderr.strip() or "?").splitlines()[0]}
    return dict(kv.split("=", 1) for kv in p.stdout.split())


def short(trace):
    parts = trace.split(os.sep)
    return os.sep.join(parts[-3:]) if len(parts) >= 3 else trace


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--raw")
    ap.add_argument("progs", nargs="+")
    a = ap.parse_args(argv[:cut])
    traces = argv[cut + 1:]

    raw = open(a.raw, "a") if a.raw else None
    res = collections.defaultdict(list)  # (trace, prog) -> [result]
    for trace in traces:
        for _ in range(a.n):
            for prog in a.progs:
                r = run_one(prog, trace)
                res[trace, prog].append(r)
                if raw:
                    raw.write(f"{trace}\t{prog}\t{r}\n")

    def lib(prog):
        rs = [r for t in traces for r in res[t, prog] if "fail" not in r]
        return rs[0]["lib"] if rs else os.path.basename(prog)

    width = max(len(lib(p)) for p in a.progs)
    print(f"# {len(traces)} trace(s), {a.n} run(s) each")
    overall = collections.defaultdict(lambda: {"mbps": [], "rss": 0, "ratio": 0})
    for trace in traces:
        ok = {p: [r for r in res[trace, p] if "fail" not in r] for p in a.progs}
        size = next((rs[0]["bytes"] for rs in ok.values() if rs), "?")
        print(f"\n## {short(trace)}  ({size} bytes)")
        print(f"{'library':<{width}}  {'MB/s med':>9} {'min':>7} {'max':>7}"
              f" {'inflate s':>9} {'peak RSS MB':>11}")
        sums = {}
        for p in a.progs:
            rs = ok[p]
            if not rs:
                print(f"{lib(p):<{width}}  FAILED: {res[trace, p][0]['fail']}")
                continue
            mb = [float(r["MBps"]) for r in rs]
            rss = max(int(r["rss_peak_kb"]) for r in rs) / 1024
            infl = statistics.median(float(r["inflate_s"]) for r in rs)
            print(f"{lib(p):<{width}}  {statistics.median(mb):9.1f} {min(mb):7.1f}"
                  f" {max(mb):7.1f} {infl:9.3f} {rss:11.1f}")
            o = overall[p]
            o["mbps"] += mb
            o["rss"] = max(o["rss"], rss)
            o["ratio"] = max(o["ratio"], rss * 1048576 / int(rs[0]["bytes"]))
            sums[lib(p)] = rs[0]["sum"]
        groups = collections.defaultdict(list)
        for name, s in sums.items():
            groups[s].append(name)
        if not groups:
            print("checksums: none (every program failed)")
        elif len(groups) == 1:
            print(f"checksums: all agree: {next(iter(groups))}")
        else:
            ref = max(groups, key=lambda s: len(groups[s]))
            print(f"checksums: DIFFER; majority ({', '.join(groups[ref])}): {ref}")
            rf = dict(f.split(":") for f in ref.split(","))
            for s, names in groups.items():
                if s != ref:
                    d = [f"{k}={v}" for k, v in (f.split(":") for f in s.split(",")) if rf[k] != v]
                    print(f"  {', '.join(names)}: {' '.join(d)}")
    if len(traces) > 1:
        print(f"\n## all {len(traces)} traces (median over every run)")
        for p in a.progs:
            o = overall[p]
            if o["mbps"]:
                print(f"{lib(p):<{width}}  {statistics.median(o['mbps']):9.1f} MB/s"
                      f"   peak RSS {o['rss']:.1f} MB, at most {o['ratio']:.2f} x input")


if __name__ == "__main__":
    main()
