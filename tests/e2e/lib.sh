# lib.sh: what every end-to-end test script shares. Source it from a
# tests/e2e/t_*.sh script; it cds to the repository root, makes a temporary
# directory $T, and counts checks: ok, bad "why", skipped "why", same
# EXPECTED ACTUAL NAME (files), is EXPECTED ACTUAL NAME (strings); finish
# prints the tally and sets the exit code. row FILE KEY COL reads one cell
# of a CSV; replay_site builds a tests/data/replay/ generator's runs.
# ms_to_us turns the ms of a published table into perfstudy's us as text.
# rss CMD... measures a command's peak RSS and CPU time.
set -u
cd "$(dirname "$0")/../.."
PERFSTUDY=${PERFSTUDY:-./perfstudy}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
failn=0
skip=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; failn=$((failn + 1)); }
skipped() { echo "SKIP: $*" >&2; skip=$((skip + 1)); }

same() { # same EXPECTED ACTUAL NAME
	if cmp -s "$1" "$2"; then ok; else bad "$3: $2 differs from $1"; diff "$1" "$2" | head -10 >&2; fi
}

is() { # is EXPECTED ACTUAL NAME: the two strings are equal.
	if [ "$1" = "$2" ]; then ok; else bad "$3: '$2', expected '$1'"; fi
}

# row FILE KEY COL: the value of COL in the first row of FILE whose cells include KEY (python3).
row() {
	python3 - "$@" << 'PY'
import csv, sys
f, key, c = sys.argv[1:]
for r in csv.DictReader(open(f)):
    if key in r.values():
        print(r[c]); break
PY
}

# replay_site GEN CSV RUN...: writes tests/data/replay/GEN.py's traces into
# $T/rp, builds the runs $T/rp/RUN... into $T/site and sets D to the folder
# of the site's CSV (replay_fixes.csv, replay_steps.csv); counts the build
# and whether D is there. For the t_replay*.sh scripts, after their python3 check.
replay_site() {
	local gen=$1 csv=$2 run runs=()
	shift 2
	for run in "$@"; do runs+=("$T/rp/$run"); done
	python3 "tests/data/replay/$gen.py" "$T/rp"
	$PERFSTUDY build -q "${runs[@]}" -o "$T/site" 2> "$T/err" && ok || bad "build failed: $(cat "$T/err")"
	local f
	f=$(find "$T/site" -name "$csv" | head -1)
	D=$(dirname "${f:-$T/site/none/$csv}") # no CSV: a folder that is not there
	[ -n "$f" ] && [ -d "$D" ] && ok || bad "no $csv"
}

# ms_to_us: each line's ms, as text with at most 6 decimals, in us with 3, by moving the decimal point
# (no arithmetic): "135795.181913" -> "135795181.913"; "0.041376" -> "41.376"; "335339.4" -> "335339400.000".
ms_to_us() { awk -F. '{ d = substr($2 "000000", 1, 6); i = $1 substr(d, 1, 3); sub(/^0+/, "", i);
	print (i == "" ? "0" : i) "." substr(d, 4, 3) }'; }

# example_h200 DIR: DIR holds the bundled h200 example, as
# `perfstudy build -q experiments/h200/study.yaml -o DIR` writes it. Under
# `make check` DIR is a link to the one copy that make built for every
# script (E2E_EXAMPLE; scripts only read it); a script run alone builds its own.
example_h200() {
	if [ -n "${E2E_EXAMPLE:-}" ] && [ -f "$E2E_EXAMPLE/index.html" ] && [ "$PERFSTUDY" = ./perfstudy ]; then
		ln -s "$E2E_EXAMPLE" "$1"
	else
		$PERFSTUDY build -q experiments/h200/study.yaml -o "$1"
	fi
}

# unpacked DIR: prints a directory that holds DIR's own files (logs, truth)
# and the traces that DIR.tar.xz keeps, inflated JSON there to stay under the
# 64 MiB the tree may weigh, here gzipped again (gzip -1) under their
# recorded names (RUN/rankN.pt.trace.json.gz). Unpacked once per checkout
# and tarball into build/unpacked/NAME-SHA (into a temporary directory
# renamed at the end, so that scripts running at once never see half of
# it), then shared by every script; read-only for them. Without the
# tarball, DIR itself. Fails (prints nothing) when xz or tar fails.
unpacked() {
	local src=$1 tar=$1.tar.xz sum dst tmp
	[ -f "$tar" ] || { echo "$PWD/$src"; return 0; }
	sum=$(sha256sum "$tar" | cut -c1-12)
	dst=$PWD/build/unpacked/$(basename "$(dirname "$src")")-$sum
	if [ ! -d "$dst" ]; then
		tmp=$dst.tmp.$$
		rm -rf "$tmp" && mkdir -p "$tmp" && cp -r "$src"/. "$tmp"/ &&
			xz -dc "$tar" | tar -x -C "$tmp" &&
			find "$tmp" -name '*.pt.trace.json' -exec gzip -1n {} + || { rm -rf "$tmp"; return 1; }
		mv -T "$tmp" "$dst" 2>/dev/null || rm -rf "$tmp" # another script got there first
	fi
	echo "$dst"
}

# planted_study FILE RUN...: sets E to experiments/h200x4's runs, unpacked
# (`unpacked`), and writes to FILE the manifest (id why) of the named
# planted-cause runs there, 4 GPUs each, with each run's rank-0 training
# log. When a named run's rank-0 trace is not there (the tarball could not
# be unpacked) it counts a skip, writes nothing and returns 1: a script
# that needs the runs goes on with `planted_study ... || { finish; exit $?; }`.
planted_study() {
	local out=$1 r
	shift
	E=$(unpacked experiments/h200x4/traces)
	for r in "$@"; do
		if [ ! -f "$E/$r/rank0.pt.trace.json.gz" ]; then
			skipped "experiments/h200x4 could not be unpacked (no $r)"
			return 1
		fi
	done
	{
		printf 'version: 1\nid: why\ntitle: planted causes\nruns:\n'
		for r in "$@"; do
			printf '  - id: %s\n    gpus: 4\n    traces: %s/%s/rank*.pt.trace.json.gz\n    inputs: %s/%s/rank0.log\n' \
				"$r" "$E" "$r" "$E" "$r"
		done
	} >"$out"
}

# rss CMD...: runs CMD with its stderr in $T/err; "peak_KB cpu_s" (its
# peak RSS in KB and user CPU seconds) into $T/rss, "? ?" without GNU time;
# returns CMD's exit code. The peak alone: `cut -d' ' -f1 "$T/rss"`.
rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%M %U" -o "$T/rss" "$@" 2>"$T/err"
		local rc=$?
		tail -n 1 "$T/rss" >"$T/rss1" && mv "$T/rss1" "$T/rss"
		return $rc
	fi
	echo "? ?" >"$T/rss"
	"$@" 2>"$T/err"
}

finish() {
	echo "$(basename "$0" .sh): $pass passed, $failn failed, $skip skipped"
	[ $failn -eq 0 ]
}
