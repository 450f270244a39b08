#!/usr/bin/env python3
"""mkbig.py - make one large Kineto trace by concatenating traceEvents.

    mkbig.py -o /tmp/kineto_big.json.gz --mb 200 TRACE.json.gz...

Events are copied as text (numbers keep their exact decimal form). Header
and trailer (deviceProperties, traceName, ...) come from the first trace;
the inputs are cycled until the output holds at least --mb 10^6 bytes.
"""
import argparse
import gzip
import json


def events_text(text):
    """Return (start, end) of the traceEvents array's contents in text."""
    key = text.index('"traceEvents"')
    start = text.index("[", key)
    _, end = json.JSONDecoder().raw_decode(text, start)  # end is past ']'
    return start + 1, end - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()

    parts, size, i, head, tail = [], 0, 0, None, None
    while size < a.mb * 1e6:
        path = a.traces[i % len(a.traces)]
        with gzip.open(path, "rt", encoding="utf-8") as f:
            text = f.read()
        s, e = events_text(text)
        if head is None:
            head, tail = text[:s], text[e:]
            size += len(head) + len(tail)
        body = text[s:e].strip()
        if body:
            parts.append(body)
            size += len(body) + 2
        i += 1
    with gzip.open(a.output, "wt", encoding="utf-8", compresslevel=6) as out:
        out.write(head + "\n")
        out.write(",\n".join(parts))
        out.write("\n" + tail)
    print(f"{a.output}: {i} traces, about {size / 1e6:.0f} MB uncompressed")


if __name__ == "__main__":
    main()
