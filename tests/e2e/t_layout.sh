#!/bin/bash
# t_layout.sh: the source tree keeps the shape docs/architecture.md gives it:
# stages include only stages before them in the doc's include order (so no
# include cycle between the folders of src/), one include style (paths from src/), no file over 800
# lines, no folder with more than 25 source files of its own, analyze/lib/
# used by the analyses' families and using none of them, no include cycle
# between those families, SQLite called from
# src/store/ only (and the readers of SQLite inputs), no table's column looked
# up by name outside a short allow-list (issue 53), and the README opens
# with its two commands; and the tracked tree stays under the 64 MiB that
# travels to the device machines.
. "$(dirname "$0")/lib.sh"

# Edges "stage included-stage" from every #include "stage/file.h" of another stage.
(cd src && grep -o '^#include "[a-z_]*/' */*.[ch] */*.cpp */*/*.[ch] */*/*.cpp | sed 's#^\([a-z_]*\)/[^:]*:\#include "\([a-z_]*\)/#\1 \2#' |
	awk '$1 != $2' | sort -u) > "$T/edges"
[ -s "$T/edges" ] && ok || bad "no include edges found"
tsort "$T/edges" > /dev/null 2> "$T/cycle" && ok || bad "include cycle between stages: $(cat "$T/cycle")"
# Every include goes to a folder before the includer in docs/architecture.md's
# "include order:" line, which names every folder of src/; a line with two
# folders swapped must fail (the check can fail).
# backward ORDER: prints each edge of $T/edges that is not from a later folder to an earlier one.
backward() {
	awk -v order="$1" 'BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) pos[o[i]] = i }
		!($1 in pos) || !($2 in pos) { print $1 " -> " $2 " (not in the line)"; next }
		pos[$2] >= pos[$1] { print $1 " -> " $2 }' "$T/edges"
}
order=$(sed -n 's/^ *include order: //p' docs/architecture.md)
backward "$order" > "$T/back"
[ -n "$order" ] && [ ! -s "$T/back" ] && ok ||
	bad "includes against docs/architecture.md's include order '$order': $(tr '\n' ';' < "$T/back")"
for d in $(cd src && find . -mindepth 1 -maxdepth 1 -type d | sed 's#^\./##'); do
	case " $order " in *" $d "*) ;; *) echo "$d" ;; esac
done > "$T/unordered"
[ ! -s "$T/unordered" ] && ok || bad "folders of src/ not in the include order: $(cat "$T/unordered")"
backward "$(echo "$order" | sed 's/chart analyze/analyze chart/')" | grep -q '^analyze -> chart$' && ok ||
	bad "an include order with analyze before chart is not caught"
# util includes no other stage.
! grep -q '^util ' "$T/edges" && ok || bad "util/ includes another stage: $(grep '^util ' "$T/edges")"
# One include style: no "../" includes.
! grep -rn '#include "\.\./' src tests/unit fuzz > "$T/rel" && ok || bad "relative includes: $(head -3 "$T/rel")"
# No file over 800 lines (issue 53).
find src -name '*.[ch]' -o -name '*.cpp' | xargs wc -l | awk '$2 != "total" && $1 > 800' > "$T/long"
[ ! -s "$T/long" ] && ok || bad "files over 800 lines: $(cat "$T/long")"
# No folder of src/ holds more than 25 source files directly (analyze/ is
# split by family, ingest/ by format).
for d in $(find src -type d); do
	n=$(find "$d" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | wc -l)
	[ "$n" -le 25 ] || echo "$d: $n"
done > "$T/big"
[ ! -s "$T/big" ] && ok || bad "folders with more than 25 source files: $(cat "$T/big")"
# analyze/lib/ is below the families: it includes no analyze/<family>/ header.
! grep -n '^#include "analyze/[a-z_]*/' src/analyze/lib/*.[ch] | grep -v '"analyze/lib/' > "$T/libup" && ok ||
	bad "analyze/lib/ includes a family: $(head -3 "$T/libup")"
# The analyses' families include each other without a cycle (issue 53: a tie
# between families shows as an include of its maker's header, and goes one
# way): edges "family included-family" of src/analyze/<family>/, by tsort;
# one edge back must be caught (the check can fail).
(cd src/analyze && grep -o '^#include "analyze/[a-z_]*/' */*.[ch] |
	sed 's#^\([a-z_]*\)/[^:]*:\#include "analyze/\([a-z_]*\)/#\1 \2#' | awk '$1 != $2' | sort -u) > "$T/fam"
[ -s "$T/fam" ] && tsort "$T/fam" > /dev/null 2> "$T/famcycle" && ok ||
	bad "include cycle between analyze/'s families: $(tr '\n' ' ' < "$T/famcycle")"
{ cat "$T/fam"; echo "time findings"; } | tsort > /dev/null 2>&1 && bad "a family include cycle is not caught" || ok
# One door to SQLite (store/store.h): no SQLite name (a call, sqlite3_stmt,
# an SQLITE_ constant, <sqlite3.h>) outside src/store/ but in the readers
# of SQLite inputs and util/sqlguard.[ch], which bounds them (ingest/ comes
# before the store, so sqlguard cannot live in store/); lines of comments
# aside. And every table is created in src/store/ (schema.c); an
# analysis's own TEMP tables aside.
grep -rnE 'sqlite3_[a-z0-9_]+|SQLITE_[A-Z0-9_]+|#[[:space:]]*include[[:space:]]*<sqlite3\.h>' src |
	grep -vE '^src/(store/|ingest/sqlitedb\.[ch]:|ingest/nvidia/nsys\.c:|ingest/nvidia/nvvp\.c:|ingest/rocm/rocpd\.c:|util/sqlguard\.[ch]:)' |
	grep -vE '^[^:]*:[0-9]+:[[:space:]]*/?\*' > "$T/sqlite"
[ ! -s "$T/sqlite" ] && ok || bad "SQLite used outside src/store/: $(head -3 "$T/sqlite")"
grep -rniE 'create[[:space:]]+table' src | grep -v '^src/store/' > "$T/create"
[ ! -s "$T/create" ] && ok || bad "tables created outside src/store/: $(head -3 "$T/create")"
# A table handed from one analysis to another is read by the enum of its
# contract in its maker's header (util/table.h, issue 53), so that a renamed
# column fails to compile: no column looked up by name (table_col_index, which
# any wrapper that takes a column's name must call) outside util/table.[ch]
# and the two readers of columns named at run time: inputs/sanity.c (every
# table's "run" and share columns) and history/crossexp.c (the table and
# columns the manifest's comparisons name).
grep -rn 'table_col_index' src |
	grep -vE '^src/(util/table\.[ch]|analyze/inputs/sanity\.c|analyze/history/crossexp\.c):' > "$T/byname"
[ ! -s "$T/byname" ] && ok || bad "columns looked up by name outside the allow-list: $(head -3 "$T/byname")"
# The README's first lines: the two commands, each under a comment naming it.
sed -n 5p README.md | grep -q '^sh tools/install-deps.sh build && make example' &&
	sed -n 6p README.md | grep -q '^# test command' &&
	sed -n 7p README.md | grep -q '^sh tools/install-deps.sh test && make -j2 check' && ok || bad "README does not open with its two commands"
# The tracked tree travels to the device machines, which take 64 MiB in all
# (issue 42: traces are bundled as .tar.xz to stay under it), counted as a
# tar of the files: each file a 512-byte header and its bytes padded to 512
# (on 2026-12-07 66.4 MB of files were 67.1 MB as a tar, and refused). 2 MiB
# are kept free for a session's own recordings before they are packed.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	sz=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null |
		awk '{ s += 512 + int(($1 + 511) / 512) * 512 } END { print s + 0 }')
	[ "$sz" -gt 1000000 ] && [ "$sz" -lt $((62 * 1048576)) ] && ok ||
		bad "the tracked tree weighs $sz bytes as a tar: over the 62 MiB that leaves 2 MiB of the 64 that travel (or not read)"
else
	skipped "not a git checkout: the tree's weight is not known"
fi
finish
