#!/bin/bash
# t_tour.sh: docs/architecture.md's source tour names every folder of src/
# and every .c and .cpp file in it, and names no source file that is not in
# the tree (issue 53 item 6). A file counts as named by its file name
# (`basic.c`) or, for util/'s modules, its name in backquotes without the
# extension (`xalloc`); a folder by `src/<path>/` or its last part
# (`kineto/`). Then a tour with one name taken out and one with a name of no
# file must fail (the checks can fail). Nothing here reads perfstudy's output.
. "$(dirname "$0")/lib.sh"
DOC=docs/architecture.md

# tour_missing DOC: prints each src/ folder and .c/.cpp file DOC does not name.
tour_missing() {
	local f b d
	for f in $(find src -type f \( -name '*.c' -o -name '*.cpp' \) | sort); do
		b=${f##*/}
		# the whole name: guard.c is not named by sqlguard.c
		grep -qE -e "(^|[^A-Za-z0-9_])${b//./\\.}" -e "\`${b%.*}\`" "$1" || echo "$f"
	done
	for d in $(find src -mindepth 1 -type d | sort); do
		grep -qF -e "\`$d/\`" -e "\`${d##*/}/\`" -e "$d/ " "$1" || echo "$d/"
	done
}

# tour_stale DOC: prints each source file name in backquotes in DOC that is
# no file of src/, fuzz/, tools/ or tests/ (a name with <...> is a pattern).
tour_stale() {
	local n
	for n in $(grep -oE '`[A-Za-z0-9_./-]+\.(c|cpp|h|proto)`' "$1" | tr -d '`' | sort -u); do
		[ -n "$(find src fuzz tools tests -name "${n##*/}" -print -quit)" ] || echo "$n"
	done
}

tour_missing "$DOC" > "$T/missing"
[ ! -s "$T/missing" ] && ok ||
	bad "$DOC's tour does not name $(wc -l < "$T/missing") of src/'s folders and files: $(tr '\n' ' ' < "$T/missing")"
tour_stale "$DOC" > "$T/stale"
[ ! -s "$T/stale" ] && ok || bad "$DOC names files that are not in the tree: $(tr '\n' ' ' < "$T/stale")"

# The checks can fail: a file's name taken out, a folder's, a name of no file put in.
sed 's/`trace_vocab\.c`/`a file`/' "$DOC" > "$T/less.md"
[ "$(tour_missing "$T/less.md")" = src/analyze/lib/trace_vocab.c ] && ok ||
	bad "a tour without trace_vocab.c is not caught: '$(tour_missing "$T/less.md")'"
sed 's/`rocm\/`/`amd`/' "$DOC" > "$T/nofolder.md"
tour_missing "$T/nofolder.md" | grep -qx 'src/ingest/rocm/' && ok || bad "a tour without rocm/ is not caught"
sed 's/`trace_vocab\.c`/`trace_vocab.c`, `why.c`/' "$DOC" > "$T/more.md"
[ "$(tour_stale "$T/more.md")" = why.c ] && ok || bad "a tour naming why.c is not caught: '$(tour_stale "$T/more.md")'"
finish
