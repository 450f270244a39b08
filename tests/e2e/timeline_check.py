#!/usr/bin/env python3
"""timeline_check.py SVG TRACES_DIR [PLANTED_RANK]: reads perfstudy's
step_timeline figure back, independently of perfstudy's code and CSVs.

Checks: one lane per rank trace in TRACES_DIR (rank*.pt.trace.json*),
each labelled "rank N" (the SVG tooltip rectangles' data-label); the
critical path is drawn (a stroked polyline of width 1.3 and its
"critical path [across ranks] on rank N" tooltips); every glyph and every
labelled rectangle lies inside the figure's viewBox; the title names the
median step, recomputed here from the raw trace JSON (per ProfilerStep#N
the longest of the ranks' durations; the lower median, ties to the lower
step); rank 0's "forward" bar of that step is as long as the raw trace's
forward annotation inside ProfilerStep#N (within 0.005 ms: the tooltip
prints three decimals of ms). With PLANTED_RANK: that rank's lane has the
smallest total wait (hatched marks, their tooltips "rank N waits in ...:
W ms"), under a tenth of every other lane's, every other lane's largest
wait is at least 5 % of the step, and the critical path's longest stretch
is on the planted rank. When the PNG of the figure lies beside the SVG:
no two entries of the key look alike (their swatches' mean colours, read
from the PNG, at least 40 apart in RGB). Each lane's kernels row draws as
much ink (bar width x opacity) as the rank's compute kernels are busy in
the step (issue #57: many short kernels drawn as a solid row). Prints one line per fault; exits
1 if any."""
import glob
import gzip
import json
import re
import sys
from xml.etree import ElementTree

NS = "{http://www.w3.org/2000/svg}"
XL = "{http://www.w3.org/1999/xlink}"
svg_path, traces = sys.argv[1], sys.argv[2]
planted = int(sys.argv[3]) if len(sys.argv) > 3 else None
faults = []


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


# --- the raw traces: ProfilerStep#N durations and rank 0's forward per step ---
files = sorted(glob.glob(traces + "/rank*.pt.trace.json*"), key=lambda p: int(re.search(r"rank(\d+)", p).group(1)))
steps = {}       # N -> longest dur (us) over ranks
forward0 = {}    # N -> rank 0's forward dur (us) inside the step
for path in files:
    rank = int(re.search(r"rank(\d+)", path).group(1))
    ev = [e for e in load(path)["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "user_annotation"]
    for e in ev:
        m = re.fullmatch(r"ProfilerStep#(\d+)", e["name"])
        if not m:
            continue
        n = int(m.group(1))
        steps[n] = max(steps.get(n, 0), e["dur"])
        if rank == 0:
            for f in ev:
                if f["name"] == "forward" and e["ts"] <= f["ts"] and f["ts"] + f["dur"] <= e["ts"] + e["dur"]:
                    forward0[n] = f["dur"]
order = sorted(steps, key=lambda n: (steps[n], n))
median = order[(len(order) - 1) // 2]
print(f"raw traces: {len(files)} ranks, steps {sorted(steps)}, median step {median} "
      f"({steps[median] / 1000:.3f} ms), rank 0 forward {forward0.get(median, 0) / 1000:.3f} ms")

# --- the figure ---
root = ElementTree.parse(svg_path).getroot()
vb = [float(v) for v in root.get("viewBox").split()]
W, H = vb[2], vb[3]
title = root.find(NS + "title").text or ""
if not re.search(rf"\bstep {median}\b", title):
    faults.append(f"title {title!r} does not name the median step {median}")
tips = []
for rect in root.iter(NS + "rect"):
    t = rect.find(NS + "title")
    if t is None:
        continue
    tips.append((rect, t.text or ""))
lanes = [r.get("data-label") for r, _ in tips if r.get("data-label")]
want = [f"rank {i}" for i in range(len(files))]
if lanes != want:
    faults.append(f"lanes {lanes}, want {want}")
# every text glyph and labelled rectangle inside the figure
nglyph = 0
for g in root.iter(NS + "use"):
    if not (g.get(XL + "href") or "").startswith("#glyph"):
        continue
    x, y = float(g.get("x", 0)), float(g.get("y", 0))
    nglyph += 1
    if not (0 <= x <= W - 1 and 6 <= y <= H):
        faults.append(f"a glyph at ({x}, {y}) outside the {W} x {H} figure")
for r, text in tips:
    x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
    if r.get("data-label") and not (0 <= x and x + w <= W and 0 <= y and y + h <= H):
        faults.append(f"label {text!r} outside the figure")
if nglyph < 50:
    faults.append(f"only {nglyph} glyphs drawn")
# rank 0's forward bar against the raw trace
fw = [t for _, t in tips if t.startswith("rank 0, forward: ")]
if median in forward0:
    if len(fw) != 1:
        faults.append(f"rank 0 has {len(fw)} forward bars, want 1")
    else:
        a, b = (float(v) for v in re.findall(r"([0-9.]+) (?:to|ms)", fw[0])[:2])
        if abs((b - a) - forward0[median] / 1000) > 0.005:
            faults.append(f"rank 0 forward {b - a:.3f} ms in the figure, {forward0[median] / 1000:.3f} ms in the trace")
# the critical path
path_tips = [t for _, t in tips if re.match(r"critical path (across ranks )?on rank ", t)]
lines = [p for p in root.iter(NS + "path") if "stroke-width:1.3" in (p.get("style") or "") and p.get("d", "").count("L") >= 1]
if not path_tips or not lines:
    faults.append(f"no critical path: {len(path_tips)} tooltips, {len(lines)} polylines")
# the waits
waits = {i: [] for i in range(len(files))}
for _, t in tips:
    m = re.match(r"rank (\d+) waits in .*?: ([0-9.]+) ms", t)
    if m:
        waits[int(m.group(1))].append(float(m.group(2)))
print("waits per lane (ms):", {r: round(sum(v), 3) for r, v in waits.items()})
if not any(waits.values()) and len(files) > 1:
    faults.append("no wait marks")
if planted is not None:
    step_ms = steps[median] / 1000
    total = {r: sum(v) for r, v in waits.items()}
    for r in total:
        if r == planted:
            continue
        if not total[planted] < 0.1 * total[r]:
            faults.append(f"planted rank {planted} waits {total[planted]:.3f} ms, rank {r} only {total[r]:.3f} ms")
        if not max(waits[r], default=0) >= 0.05 * step_ms:
            faults.append(f"rank {r}'s largest wait {max(waits[r], default=0):.3f} ms is under 5 % of the step")
    spans = {}
    for t in path_tips:
        m = re.match(r"critical path (?:across ranks )?on rank (\d+): ([0-9.]+) to ([0-9.]+)", t)
        if m:
            r = int(m.group(1))
            spans[r] = spans.get(r, 0) + float(m.group(3)) - float(m.group(2))
    if not spans or max(spans, key=spans.get) != planted:
        faults.append(f"the critical path is longest on rank {max(spans, key=spans.get) if spans else None}, not {planted}")


# --- the kernels rows' ink against the raw traces (issue #57) ---
# A bar of the figure stands for the activities it merges, drawn at the opacity of the share of its width
# they cover: its ink (width x opacity) is their busy time, except a bar at the faintest opacity (0.15),
# whose ink may exceed theirs by all of its own. So per lane, the kernels row's ink must be the union of
# the rank's compute kernels (every kernel not NCCL's) in its step N, clipped to it, in pt, within the
# ink of its faintest bars + 0.2 pt (the SVG's coordinates, to 1/1000 pt per edge). A row drawn solid
# over gaps (the old drawing) has ink far above its busy time.
def kernel_busy_ms(path, n):
    ev = [e for e in load(path)["traceEvents"] if e.get("ph") == "X"]
    st = [e for e in ev if e.get("cat") == "user_annotation" and e["name"] == f"ProfilerStep#{n}"]
    if not st:
        return None
    lo, hi = st[0]["ts"], st[0]["ts"] + st[0]["dur"]
    iv = sorted((max(e["ts"], lo), min(e["ts"] + e["dur"], hi)) for e in ev
                if e.get("cat") == "kernel" and "nccl" not in e["name"].lower() and e["ts"] < hi and e["ts"] + e["dur"] > lo)
    busy, upto = 0.0, lo
    for a, b in iv:
        if b > upto:
            busy += b - max(a, upto)
            upto = b
    return busy / 1000


bars = []  # (x0, x1, y0, opacity) of every filled rectangle
for p in root.iter(NS + "path"):
    m = re.search(r"fill:rgb\([^)]*\);fill-opacity:([0-9.]+)", p.get("style") or "")
    d = re.fullmatch(r"M ([0-9.]+) ([0-9.]+) L ([0-9.]+) \2 L \3 ([0-9.]+) L \1 \4 Z M \1 \2 ", p.get("d") or "")
    if m and d:
        bars.append((float(d.group(1)), float(d.group(3)), float(d.group(2)), float(m.group(1))))
for i, path in enumerate(files):
    host = [(r, t) for r, t in tips if t.startswith(f"rank {i}, ") and re.search(r": ([0-9.]+) to ([0-9.]+) ms$", t)]
    if not host:
        continue
    r, t = max(host, key=lambda h: float(h[0].get("width")))
    a, b = (float(v) for v in re.search(r": ([0-9.]+) to ([0-9.]+) ms$", t).groups())
    pt_per_ms = float(r.get("width")) / (b - a)
    y_kern = float(r.get("y")) + float(r.get("height")) + 1  # the next row: rows are height + 1 apart
    row = [(x0, x1, o) for x0, x1, y0, o in bars if abs(y0 - y_kern) < 0.02]
    ink = sum((x1 - x0) * o for x0, x1, o in row) / pt_per_ms
    faint = sum((x1 - x0) * o for x0, x1, o in row if o <= 0.15) / pt_per_ms
    busy = kernel_busy_ms(path, median)
    print(f"rank {i} kernels: ink {ink:.3f} ms ({len(row)} bars, {faint:.3f} ms at the faintest), trace {busy:.3f} ms")
    if busy is not None and abs(ink - busy) > faint + 0.2 / pt_per_ms:
        faults.append(f"rank {i}'s kernels row draws {ink:.3f} ms of ink, its kernels are busy {busy:.3f} ms")


# --- the key's colours, read from the PNG beside the SVG: no two keys alike ---
def png_rgb(path):
    """Rows of (r, g, b) of an 8-bit RGB or RGBA, non-interlaced PNG (zlib, the five filters)."""
    import struct, zlib
    d = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(d):
        n, kind = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and lace == 0, "unsupported PNG"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return rows


png = re.sub(r"\.svg$", ".png", svg_path)
keys = [(r, t[5:]) for r, t in tips if t.startswith("key: ") and not t.startswith("key: critical path")]
try:
    px = png_rgb(png)
except OSError:
    px = None
if px is not None and keys:
    k = len(px[0]) / W  # PNG pixels per SVG point
    seen = []
    for r, name in keys:
        # the swatch is the entry's first 14 pt (2 x SWATCH), 7 pt high, centred: average its middle
        x0, yc = float(r.get("x")), float(r.get("y")) + float(r.get("height")) / 2
        cells = [px[int((yc + dy) * k)][int((x0 + dx) * k)] for dx in (3, 5, 7, 9, 11) for dy in (-1.5, 0, 1.5)]
        rgb = tuple(sum(c[i] for c in cells) / len(cells) for i in range(3))
        for other, orgb in seen:
            if sum((rgb[i] - orgb[i]) ** 2 for i in range(3)) ** 0.5 < 40:
                faults.append(f"key {name!r} looks like key {other!r}: {rgb} against {orgb}")
        seen.append((name, rgb))
    print(f"key colours from {png}: " + ", ".join(f"{n} #{int(c[0]):02x}{int(c[1]):02x}{int(c[2]):02x}" for n, c in seen))
for f in faults:
    print(f"{svg_path}: {f}")
print(f"timeline_check: {len(lanes)} lanes, {len(path_tips)} path segments, {len(faults)} faults")
sys.exit(1 if faults else 0)
