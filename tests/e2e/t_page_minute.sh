#!/bin/bash
# t_page_minute.sh: a page read in a minute (issue #40 item 3), in the real
# browser. On the planted-cause runs of experiments/h200x4 (ddp-clean and
# five runs with one cause planted on rank 3, as t_why.sh builds them), on
# two of them built as plain directories with a run named like markup, and
# on the bundled H200 example, headless Chromium opens a copy of each
# experiment page with tests/e2e/page_minute.js added at a 1400 x 900
# window, and the DOM it built says: "What to fix first" ends inside the
# viewport without scrolling; its lines are one per cause with a saving in
# findings.csv (the findings of one run and rank with the same saving are
# one cause), in its order, the planted ddp-pageable first and ddp-clean
# nowhere; every line links to a finding that exists inside a <details>;
# every <details> is closed until a link opens it; the key numbers show the
# training log's median that tests/golden/log_medians.py computes from the
# raw log; "No cause worth fixing found" beside findings says how many and
# of which rules (issue #57); the timeline slot shows figures/step_timeline_<run> exactly
# where that figure exists. A screenshot of each page is kept in
# build/test-artifacts/screenshots/page_minute_*.png to look at.
. "$(dirname "$0")/lib.sh"

browser=${CHROMIUM:-}
for b in chromium chromium-browser google-chrome; do
	[ -n "$browser" ] && break
	command -v "$b" >/dev/null 2>&1 && browser=$b
done
if [ -z "$browser" ] || ! command -v python3 >/dev/null; then
	skipped "chromium or python3 missing"
	finish
	exit $?
fi
RUNS="ddp-clean ddp-uneven ddp-pageable ddp-sync ddp-sleep ddp-extra"
planted_study "$T/study.yaml" $RUNS || { finish; exit $?; }
$PERFSTUDY build -q "$T/study.yaml" -o "$T/o" 2>"$T/err" && ok || bad "build: $(cat "$T/err")"
# A directory build: run names from the directories, one like markup; no training log.
hostile="p<b>ageable&'\""
mkdir -p "$T/d/clean" "$T/d/$hostile"
for i in 0 1 2 3; do
	ln -s "$E/ddp-clean/rank$i.pt.trace.json.gz" "$T/d/clean/"
	ln -s "$E/ddp-pageable/rank$i.pt.trace.json.gz" "$T/d/$hostile/"
done
$PERFSTUDY build -q "$T/d/clean" "$T/d/$hostile" -o "$T/od" 2>"$T/err" && ok || bad "directory build: $(cat "$T/err")"
example_h200 "$T/ex" 2>"$T/err" || bad "example build: $(cat "$T/err")"

profile=$(mktemp -d)
trap 'rm -rf "$T" "$profile"' EXIT
artifacts=build/test-artifacts/screenshots
mkdir -p "$artifacts"
# check SITE ID [FRAGMENT]: the JSON page_minute.js wrote, on stdout. The
# page is copied beside links to the site's files (the example may be a
# shared copy that scripts only read).
check() {
	local c=$T/chk/$2
	mkdir -p "$c/$2"
	ln -sfn "$1/assets" "$c/assets"
	for x in figures data traces; do ln -sfn "$1/$2/$x" "$c/$2/$x"; done
	sed 's#</body>#<script src="page_minute.js"></script>\n</body>#' "$1/$2/index.html" >"$c/$2/check.html"
	cp tests/e2e/page_minute.js "$c/$2/"
	timeout 240 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
		--window-size=1400,900 --virtual-time-budget=5000 --dump-dom "file://$c/$2/check.html$3" 2>/dev/null |
		python3 -c 'import html, re, sys
m = re.search(r"<pre id=\"page-check\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m.group(1)) if m else "{}")'
}

# judge NAME SITE ID JSON: the page against its own findings.csv and tables, read here.
judge() {
	python3 - "$1" "$2/$3" "$4" "$E" <<'PY'
import csv, hashlib, json, os, subprocess, sys
name, d, js, E = sys.argv[1:]
got = json.load(open(js))
bad = 0
def fail(msg):
    global bad
    print("%s: %s" % (name, msg))
    bad += 1
f = list(csv.DictReader(open(d + "/data/findings.csv"))) if os.path.exists(d + "/data/findings.csv") else []
# the causes: rows with a saving, one per run, rank and saving, in the table's order
causes = []
for r in f:
    if r["saving_us_per_step"] and (r["run"], r["rank"], r["saving_us_per_step"]) not in causes:
        causes.append((r["run"], r["rank"], r["saving_us_per_step"]))
limit = min(900, got.get("inner", [0, 0])[1])
if got.get("fix") is None:
    fail("no 'What to fix first'")
elif got["fix"] > limit:
    fail("'What to fix first' ends at %.0f px, below the %d px viewport" % (got["fix"], limit))
if got.get("scrollY"):
    fail("the page opened scrolled")
lines = got.get("lines", [])
if not causes:
    if lines or not (got.get("none") or "").startswith("No cause worth fixing found: "):
        fail("no saving in findings.csv, yet lines %s / %r" % (lines, got.get("none")))
    # issue #57: beside findings, the line says how many there are and of which rules, so that it
    # does not read as if the page found nothing
    rules = []
    for r in f:
        k = r["rule"].split(":")[0]
        if k not in rules:
            rules.append(k)
    want = " The %d finding%s below (%s) %s; none prices a fix." % (
        len(f), "" if len(f) == 1 else "s", ", ".join(rules), "describes the run" if len(f) == 1 else "describe the runs")
    if f and not (got.get("none") or "").endswith(want):
        fail("'No cause worth fixing found' beside %d findings says %r, want it to end %r" % (len(f), got.get("none"), want))
else:
    want = causes[:8]
    if len(lines) != len(want):
        fail("%d lines, findings.csv has %d causes (at most 8 shown)" % (len(lines), len(want)))
    for l, (run, rank, s) in zip(lines, want):
        head = run + (" · rank " + rank if rank else "") + " · "
        ms = "saves %.1f ms/step" % (float(s) / 1000)
        if not l["text"].startswith(head) or not l["text"].endswith(ms):
            fail("line %r, want %r ... %r" % (l["text"], head, ms))
    if len(causes) > 8 and not (got.get("more") and got["more"]["found"] and
                                got["more"]["text"] == "and %d more" % (len(causes) - 8)):
        fail("no 'and %d more' linking to the findings: %s" % (len(causes) - 8, got.get("more")))
for l in lines:
    if not (l["found"] and l["inDetails"]):
        fail("line %r links to #%s, not a finding inside <details>" % (l["text"], l["target"]))
    if l["bottom"] > limit:
        fail("line %r ends at %.0f px" % (l["text"], l["bottom"]))
if got.get("details") != len(f):
    fail("%s <details>, findings.csv has %d rows" % (got.get("details"), len(f)))
if got.get("open"):
    fail("open before any link: %s" % got["open"])
# the key numbers: one row per run; the timeline figure where it exists
runs = [r["run"] for r in csv.DictReader(open(d + "/data/runs.csv"))]
rows = got.get("keyRows", [])
if [r[0] for r in rows] != runs:
    fail("key numbers for %s, runs.csv has %s" % ([r[0] for r in rows], runs))
def stem(run):
    """A run's file-name stem, as docs/output.md defines it (util/fs.c's fs_name_stem)."""
    b = run.encode()
    if 0 < len(b) <= 64 and all(c in b"abcdefghijklmnopqrstuvwxyz0123456789-" for c in b):
        return run
    keep = bytes(c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789-" else c + 32 if 65 <= c <= 90 else 95 for c in b[:64])
    return keep.decode() + "_" + hashlib.sha256(b).hexdigest()[:16]
figs = ["figures/step_timeline_%s.svg" % stem(r) for r in runs
        if os.path.exists("%s/figures/step_timeline_%s.svg" % (d, stem(r)))]
if got.get("keyFigures") != figs:
    fail("timeline figures shown %s, on disk %s" % (got.get("keyFigures"), figs))
# the training log's median and count, from the raw log (planted runs)
if name == "planted":
    if lines and not lines[0]["text"].startswith("ddp-pageable · rank 3 · pageable"):
        fail("the first line is not the planted pageable copy: %r" % lines[0]["text"])
    if any(l["text"].startswith("ddp-clean") for l in lines):
        fail("a line for ddp-clean")
    out = subprocess.run(["python3", "tests/golden/log_medians.py", E + "/ddp-pageable/rank0.log"],
                         capture_output=True, text=True).stdout
    import re
    m = re.search(r"unprofiled n=(\d+) median ([0-9.]+) ms", out)
    row = [r for r in rows if r[0] == "ddp-pageable"]
    want = "%.1f ms %s iterations" % (float(m.group(2)), m.group(1)) if m else None
    if not m or not row or row[0][1] != want:
        fail("ddp-pageable's log median: %s, the raw log says %r" % (row, want))
    if not row or "only 2 steps" not in row[0][2]:
        fail("ddp-pageable's trace median does not say it rests on 2 steps: %s" % row)
print("%s: %d lines, %d findings, fix ends at %.0f of %d px" % (name, len(lines), len(f), got.get("fix") or -1, limit))
sys.exit(1 if bad else 0)
PY
}

for site in "planted $T/o why" "directory $T/od default" "example $T/ex h200"; do
	set -- $site
	check "$2" "$3" "" >"$T/$1.json"
	judge "$1" "$2" "$3" "$T/$1.json" >"$T/$1.out" 2>&1 && ok || bad "$(cat "$T/$1.out")"
	sed 's/^/  /' "$T/$1.out"
	timeout 240 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --hide-scrollbars \
		--window-size=1400,900 --screenshot="$artifacts/page_minute_$1.png" "file://$2/$3/index.html" >/dev/null 2>&1 ||
		bad "$1: no screenshot"
done

# A list link opens its finding: the browser unfolds the <details> around the target.
check "$T/o" why "#finding-2" >"$T/frag.json"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])).get("open") != ["finding-2"])' "$T/frag.json" &&
	ok || bad "#finding-2 does not open its finding: $(cat "$T/frag.json" | head -c 300)"
# Markup in a run's name stays text: in the list, the key numbers and the summaries.
grep -qF '<span class="run">p&lt;b&gt;ageable&amp;&#39;&quot;</span> &middot; rank 3' "$T/od/default/index.html" && ok ||
	bad "the run named like markup is not escaped in the list"
grep -q '<b>ageable' "$T/od/default/index.html" && bad "a run's name became markup" || ok
# The rest of the browser check (no script but sort.js, images of the site, no console message) on the planted site.
ARTIFACTS=build/test-artifacts/screenshots/page_minute bash tests/e2e/browser_check.sh "$T/o" >"$T/bc" 2>&1 && ok ||
	bad "browser check of the planted site: $(cat "$T/bc")"
finish
