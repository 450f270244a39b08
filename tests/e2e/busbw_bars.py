#!/usr/bin/env python3
"""busbw_bars.py: collective_busbw's figure against its CSV, one bar per run.

Usage: busbw_bars.py MANIFEST CSV SVG GPUS

Where runs of one model, strategy and GPU count send the same collective
type, each run has its own bar, named "<label>: <type>" with the run's
label as the manifest writes it (read here from MANIFEST, not from
perfstudy). Each bar's title is "<category>, <GPUS> GPUs: <value>", the
value as printed: it must be the CSV's busbw_gb_per_s rounded to the digits
printed. Every CSV row needs its bar, and there are no other bars. Exits 1
and says which bar differs otherwise.
"""
import csv
import html
import re
import sys


def main(manifest, table, svg, gpus):
    labels = dict((i, l.strip('"')) for i, l in re.findall(r"- id: (\S+)\n\s+label: (.+)", open(manifest).read()))
    titles = re.findall(r"<title>([^<]*: [0-9.]+)</title>", open(svg).read())
    bars = dict(html.unescape(t).rsplit(": ", 1) for t in titles)
    rows = list(csv.DictReader(open(table)))
    bad = len(bars) != len(rows)
    for r in rows:
        name = "%s: %s, %s GPUs" % (labels[r["run"]], r["collective"], gpus)
        want, got = float(r["busbw_gb_per_s"]), bars.get(name)
        if got is None or abs(float(got) - want) > 0.5 * 10 ** -len((got + ".").split(".")[1]) + 1e-12:
            print("%s: bar '%s': %s, the CSV's %s" % (svg, name, got, want), file=sys.stderr)
            bad = True
    if len(bars) != len(rows):
        print("%s: %d bars for %d rows" % (svg, len(bars), len(rows)), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
