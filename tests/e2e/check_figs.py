#!/usr/bin/env python3
"""check_figs.py SVG...: reads perfstudy's figures back as they are drawn
(issue 57 item 8) and prints one line per fault; exits 1 if any.

Legend colours: each key entry is the rectangle of a "key: NAME"
tooltip, its swatch at its left end. The swatch's colour is what a reader
sees there: the fills under the middle of the swatch box (SWATCH points
from the entry's left edge: 7 pt, chart_draw.h), laid one over the other
with their opacities on a white page, within the clip paths they are drawn
in; where no fill is there, a marker's fill inside the swatch, else the
colour of the strokes that cross it (a line in the key). Two entries of one
figure are of one colour when their colours are within 6 of 255 in every
channel, or one is the other (a colour, not a grey: runs are greys told
apart by lightness) made paler, 1 - c2 = t (1 - c1) for one t in every
channel within 6 of 255: the timeline's "optimizer step" and "compute"
were one orange, one of them half white. Entries told apart otherwise (a
dash pattern, hatching, a marker's shape) are not compared.

Axis titles: each "x axis: TITLE" and "y axis: TITLE" tooltip's rectangle
is where its title is drawn, TITLE the full text. cairo writes each
character drawn, a space too, as one glyph placed at its origin; the
glyphs inside the rectangle are the title drawn. A whole title has one
per character of TITLE, less the space at which a title on two lines
(two rows of glyphs) was split; a title cut ("bus ... (GB/s), log scale")
has fewer.
"""
import re
import sys
from xml.etree import ElementTree

NS = "{http://www.w3.org/2000/svg}"
SWATCH = 7.0
TOL = 6 / 255


def style_of(el):
    st = {}
    for part in (el.get("style") or "").split(";"):
        if ":" in part:
            k, v = part.split(":", 1)
            st[k.strip()] = v.strip()
    for k in ("fill", "fill-opacity", "stroke", "stroke-opacity", "stroke-dasharray", "opacity"):
        if el.get(k) is not None:
            st[k] = el.get(k)
    return st


def rgb(v):
    """cairo's rgb(a%,b%,c%) or #rrggbb as three numbers in 0..1; None for none."""
    if not v or v == "none":
        return None
    m = re.match(r"rgb\(([-\d.]+)%,([-\d.]+)%,([-\d.]+)%\)", v.replace(" ", ""))
    if m:
        return tuple(float(x) / 100 for x in m.groups())
    m = re.match(r"#([0-9a-fA-F]{6})$", v)
    if m:
        return tuple(int(m.group(1)[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return None


def bbox(el):
    """The bounding box of a path (absolute M/L/C/Z, as cairo writes) or rect; None if unknown."""
    tag = el.tag[len(NS):] if el.tag.startswith(NS) else el.tag
    if tag == "rect":
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        return (x, y, x + float(el.get("width", 0)), y + float(el.get("height", 0)))
    if tag == "path":
        d = el.get("d") or ""
        if re.search(r"[a-zA-Z]", re.sub(r"[MLCZ]", "", d)):
            return None  # relative or arc commands: not cairo's
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", d)]
        if len(nums) < 2:
            return None
        xs, ys = nums[0::2], nums[1::2]
        return (min(xs), min(ys), max(xs), max(ys))
    return None


def inside(p, b):
    return b is not None and b[0] <= p[0] <= b[2] and b[1] <= p[1] <= b[3]


def meets(r, b):
    return b is not None and b[0] <= r[2] and r[0] <= b[2] and b[1] <= r[3] and r[1] <= b[3]


def clip_box(clips, ref):
    m = re.match(r"url\(#([^)]+)\)", ref or "")
    if not m or m.group(1) not in clips:
        return None
    boxes = [bbox(c) for c in clips[m.group(1)] if bbox(c)]
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def drawn(root):
    """Every painted path and rect in order: (element, bbox, clip box or None). Glyphs (symbols) are left out."""
    clips = {}
    for cp in root.iter(NS + "clipPath"):
        clips[cp.get("id")] = list(cp)
    out = []

    def walk(el, clip):
        tag = el.tag[len(NS):] if el.tag.startswith(NS) else el.tag
        if tag in ("defs", "symbol", "clipPath", "title", "mask", "pattern"):
            return
        if el.get("transform"):
            return  # text (glyphs placed by a transform): not a swatch
        c = clip_box(clips, el.get("clip-path"))
        if c is not None:
            clip = c if clip is None else (max(c[0], clip[0]), max(c[1], clip[1]), min(c[2], clip[2]), min(c[3], clip[3]))
        if tag in ("path", "rect") and el.find(NS + "title") is None:
            out.append((el, bbox(el), clip))
        for ch in el:
            walk(ch, clip)

    walk(root, None)
    return out


def swatch_colour(items, tip):
    """The colour the reader sees in the swatch at the left of a key entry's rectangle, and its pattern."""
    x, y, w, h = tip
    p = (x + min(SWATCH, w) / 2, y + h / 2)
    region = (x, y, x + min(2 * SWATCH, w), y + h)
    col = None
    for el, b, clip in items:
        st = style_of(el)
        f = rgb(st.get("fill")) if el.get("style") or el.get("fill") else None
        if f is None or not inside(p, b) or (clip is not None and not inside(p, clip)):
            continue
        a = float(st.get("fill-opacity", 1)) * float(st.get("opacity", 1))
        base = col if col is not None else (1.0, 1.0, 1.0)
        col = tuple(a * f[i] + (1 - a) * base[i] for i in range(3))
    pattern = []
    strokes = []
    for el, b, clip in items:
        st = style_of(el)
        s = rgb(st.get("stroke"))
        if s is None or not meets(region, b) or (clip is not None and not meets(region, clip)):
            continue
        if st.get("stroke-dasharray", "none") != "none":
            pattern.append("dash " + st["stroke-dasharray"])
        if (el.get("d") or "").count("M") >= 3:
            pattern.append("hatch")  # lines across the swatch (a rectangle's outline is one M and its close)
        elif region[0] - 0.5 <= b[0] and b[2] <= region[2] + 0.5:
            strokes.append(s)
    if col is None or all(v > 1 - TOL for v in col):
        col = None
        # a marker: a fill inside the swatch, its shape (its path's commands) telling it apart
        for el, b, clip in items:
            f = rgb(style_of(el).get("fill"))
            if f is not None and b is not None and region[0] - 0.5 <= b[0] and b[2] <= region[2] + 0.5 \
                    and region[1] <= b[1] and b[3] <= region[3]:
                col = f
                pattern.append("marker " + re.sub(r"[^A-Z]", "", el.get("d") or "rect"))
                break
    if col is None:
        dark = [s for s in strokes if not (abs(s[0] - s[1]) < TOL and abs(s[1] - s[2]) < TOL and s[0] > 0.3)]
        col = dark[0] if dark else (strokes[0] if strokes else None)
    return col, " ".join(sorted(set(pattern)))


def same_colour(a, b):
    if all(abs(a[i] - b[i]) <= TOL for i in range(3)):
        return True
    # one is the other, a colour (not a grey: greys are told apart by lightness), mixed with white:
    # (1 - c2) = t (1 - c1) in every channel
    for c1, c2 in ((a, b), (b, a)):
        if max(c1) - min(c1) < 0.1:
            continue
        d1 = [1 - v for v in c1]
        d2 = [1 - v for v in c2]
        k = max(range(3), key=lambda i: d1[i])
        t = d2[k] / d1[k]
        if 0 < t <= 1 and all(abs(t * d1[i] - d2[i]) <= TOL for i in range(3)):
            return True
    return False


def hexc(c):
    return "#" + "".join("%02x" % round(255 * v) for v in c)


def glyphs(root):
    """The origins of the glyphs drawn (cairo writes each character, a space too, as a <use> of a glyph)."""
    out = []
    for el in root.iter(NS + "use"):
        try:
            out.append((float(el.get("x")), float(el.get("y"))))
        except (TypeError, ValueError):
            pass
    return out


faults = nkeys = ntitles = 0
for path in sys.argv[1:]:
    root = ElementTree.parse(path).getroot()
    tips = []
    for r in root.iter(NS + "rect"):
        t = r.find(NS + "title")
        if t is not None and t.text:
            tips.append((t.text, (float(r.get("x")), float(r.get("y")), float(r.get("width")), float(r.get("height")))))
    items = drawn(root)
    keys = []
    for text, box in tips:
        if text.startswith("key: "):
            col, pat = swatch_colour(items, box)
            nkeys += 1
            if col is None:
                print(f"{path}: key {text[5:]!r}: no colour found in its swatch")
                faults += 1
                continue
            for name, c, p in keys:
                if p == pat and same_colour(c, col):
                    print(f"{path}: keys {name!r} ({hexc(c)}) and {text[5:]!r} ({hexc(col)}) are of one colour")
                    faults += 1
            keys.append((text[5:], col, pat))
    # Each axis title: its glyphs inside its rectangle, one per character of the full title; a title on
    # two lines (two rows of glyphs: one x for a y axis's rotated lines, one y for an x axis's) leaves out
    # the space it was split at. A shortened one ("bus ... (GB/s)") has fewer.
    pts = glyphs(root)
    for text, (x, y, w, h) in tips:
        if not text.startswith(("x axis: ", "y axis: ")):
            continue
        title = text.split(": ", 1)[1]
        ntitles += 1
        inner = [p for p in pts if x - 0.5 <= p[0] <= x + w + 0.5 and y - 0.5 <= p[1] <= y + h + 0.5]
        rows = len({round(p[0 if text[0] == "y" else 1], 1) for p in inner})
        if len(inner) != len(title) - max(rows - 1, 0):
            print(f"{path}: the axis title {title!r} is drawn as {len(inner)} characters in {rows} line(s), not whole")
            faults += 1
print(f"check_figs: {nkeys} keys and {ntitles} axis titles in {len(sys.argv) - 1} figures, {faults} faults")
sys.exit(1 if faults else 0)
