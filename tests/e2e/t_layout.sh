#!/bin/bash
# t_layout.sh: the source tree keeps the shape docs/architecture.md gives it:
# stages include only stages before them (no include cycle between the
# folders of src/), one include style (paths from src/), no file over 1,000
# lines, no folder with more than 25 source files of its own, analyze/lib/
# used by the analyses' families and using none of them, SQLite called from
# src/store/ only (and the readers of SQLite inputs), and the README opens
# with its two commands; and the tracked tree stays under the 64 MiB that
# travels to the device machines.
. "$(dirname "$0")/lib.sh"

# Edges "stage included-stage" from every #include "stage/file.h" of another stage.
(cd src && grep -o '^#include "[a-z_]*/' */*.[ch] */*.cpp */*/*.[ch] */*/*.cpp | sed 's#^\([a-z_]*\)/[^:]*:\#include "\([a-z_]*\)/#\1 \2#' |
	awk '$1 != $2' | sort -u) > "$T/edges"
[ -s "$T/edges" ] && ok || bad "no include edges found"
tsort "$T/edges" > /dev/null 2> "$T/cycle" && ok || bad "include cycle between stages: $(cat "$T/cycle")"
# util includes no other stage.
! grep -q '^util ' "$T/edges" && ok || bad "util/ includes another stage: $(grep '^util ' "$T/edges")"
# One include style: no "../" includes.
! grep -rn '#include "\.\./' src tests/unit fuzz > "$T/rel" && ok || bad "relative includes: $(head -3 "$T/rel")"
# No file over 1,000 lines.
find src -name '*.[ch]' -o -name '*.cpp' | xargs wc -l | awk '$2 != "total" && $1 > 1000' > "$T/long"
[ ! -s "$T/long" ] && ok || bad "files over 1,000 lines: $(cat "$T/long")"
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
# The README's first lines: the two commands, each under a comment naming it.
sed -n 5p README.md | grep -q '^sh tools/install-deps.sh build && make example' &&
	sed -n 6p README.md | grep -q '^# test command' &&
	sed -n 7p README.md | grep -q '^sh tools/install-deps.sh test && make -j2 check' && ok || bad "README does not open with its two commands"
# The tracked tree travels to the device machines, which take 64 MiB in all
# (issue 42: traces are bundled as .tar.xz to stay under it).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	sz=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	[ "$sz" -gt 1000000 ] && [ "$sz" -lt 67108864 ] && ok || bad "the tracked tree weighs $sz bytes: over the 64 MiB that travels (or not read)"
else
	skipped "not a git checkout: the tree's weight is not known"
fi
finish
