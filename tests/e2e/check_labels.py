#!/usr/bin/env python3
"""check_labels.py SVG...: the category labels drawn on perfstudy's figures
(each SVG tooltip rectangle's data-label, beside data-name, the chart
model's category it shows, and its <title>, whose first line is the full
name) are all different within a figure where the full names differ, and a shortened
label (one with an ellipsis) is cut only between words: where a letter or
digit meets anything else, as perfstudy's labels.c defines a word. Prints
one line per fault; exits 1 if any."""
import re
import sys
from xml.etree import ElementTree

ELL = "\u2026"
NS = "{http://www.w3.org/2000/svg}"


def wordy(ch):
    return ord(ch) >= 0x80 or ch.isascii() and ch.isalnum()


def boundary(s, i):
    return i <= 0 or i >= len(s) or not wordy(s[i - 1]) or not wordy(s[i])


def cut_ok(label, full):
    """Whether label is full with whole-word runs replaced by ellipses."""
    parts = label.split(ELL)
    pos = 0
    for k, part in enumerate(parts):
        if k == 0:
            start = 0 if full.startswith(part) else -1
        elif k == len(parts) - 1:
            start = len(full) - len(part) if full.endswith(part) else -1
            if start < pos:
                start = -1
        else:
            start = full.find(part, pos)
        if start < 0:
            return False
        end = start + len(part)
        # Each elided run starts and ends between words.
        if k > 0 and not boundary(full, start):
            return False
        if k < len(parts) - 1 and not boundary(full, end):
            return False
        pos = end
    return True


faults = 0
nlabels = 0
for path in sys.argv[1:]:
    root = ElementTree.parse(path).getroot()
    seen = {}
    for rect in root.iter(NS + "rect"):
        label = rect.get("data-label")
        if label is None or label == "":
            continue
        title = rect.find(NS + "title")
        full = (title.text or "").split("\n")[0] if title is not None else ""
        name = rect.get("data-name") or full
        nlabels += 1
        if label in seen and seen[label] != full:
            print(f"{path}: two names share the label {label!r}: {seen[label]!r} and {full!r}")
            faults += 1
        seen.setdefault(label, full)
        if ELL in label and ELL not in name and not cut_ok(label, name):
            print(f"{path}: {label!r} cuts {name!r} inside a word")
            faults += 1
        elif ELL not in label and label != name:
            print(f"{path}: {label!r} is not {name!r}, nor shortened from it")
            faults += 1
print(f"check_labels: {nlabels} labels in {len(sys.argv) - 1} figures, {faults} faults")
sys.exit(1 if faults else 0)
