#!/usr/bin/env python3
"""refsum.py - independent reference for the bench checksum (slow, exact).

    refsum.py TRACE.json[.gz]...

Computes the checksum line that main.c prints, in Python with decimal
arithmetic on the numbers' source text, and counts how many ts values a
reader that only has doubles (llround(value * 1000)) would get wrong.
"""
import gzip
import json
import math
import sys
from decimal import Decimal

M = 1 << 64
ARGS = (("correlation", "corr"), ("stream", "stream"), ("device", "device"), ("bytes", "bytes"))


def ns(text):
    return int(Decimal(text) * 1000)  # truncates past 3 decimals, like main.c


def via_double(text):
    x = float(text) * 1000.0
    return int(math.copysign(math.floor(abs(x) + 0.5), x))  # llround


def main():
    for path in sys.argv[1:]:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            d = json.load(f, parse_float=str, parse_int=str)
        s = dict.fromkeys(("events", "kernels", "kernel_dur_ns", "X", "ts_ns", "corr",
                           "stream", "device", "bytes", "name_bytes"), 0)
        n_ts = bad = worst = 0
        for e in d["traceEvents"]:
            s["events"] += 1
            if e.get("cat") == "kernel":
                s["kernels"] += 1
                if "dur" in e:
                    s["kernel_dur_ns"] += ns(e["dur"])
            if e.get("ph") == "X":
                s["X"] += 1
            if "ts" in e:
                exact = ns(e["ts"])
                s["ts_ns"] = (s["ts_ns"] + exact) % M
                n_ts += 1
                err = abs(via_double(e["ts"]) - exact)
                bad += err != 0
                worst = max(worst, err)
            args = e.get("args") or {}
            for key, field in ARGS:
                if isinstance(args.get(key), str):
                    s[field] = (s[field] + int(args[key])) % M
            if isinstance(e.get("name"), str):
                s["name_bytes"] += len(e["name"].encode())
        print(path)
        print("  sum=" + ",".join(f"{k}:{v}" for k, v in s.items()))
        print(f"  ts via double: {bad}/{n_ts} wrong, worst by {worst} ns")


if __name__ == "__main__":
    main()
