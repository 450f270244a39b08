#!/bin/bash
# t_reproduction.sh: docs/reproduction.md gives every table and figure row
# exactly one status word (computed, typed in, not reproduced) at the start
# of its last column, and every row marked computed names a bundled input,
# a path under experiments/, that exists.
. "$(dirname "$0")/lib.sh"

doc=${REPRO_DOC:-docs/reproduction.md}
rows=0
# The rows of the five papers' tables: lines starting "| " that are not a header or a rule.
grep '^| ' "$doc" | grep -v '^| item |' | grep -v '^|---' >"$T/rows"
while IFS= read -r line; do
	rows=$((rows + 1))
	item=$(printf '%s\n' "$line" | awk -F' [|] ' '{ sub(/^[|] /, "", $1); print $1 }')
	status=$(printf '%s\n' "$line" | awk -F' [|] ' '{ print $NF }')
	words=0
	for w in '**computed**' '**typed in**' '**not reproduced**'; do
		case "$status" in *"$w"*) words=$((words + 1)) ;; esac
	done
	case "$status" in
	'**computed**'* | '**typed in**'* | '**not reproduced**'*)
		if [ "$words" -eq 1 ]; then ok; else bad "$item: $words status words in \"$status\""; fi ;;
	*) bad "$item: the status does not start with computed, typed in or not reproduced: \"$status\"" ;;
	esac
	for old in exact regenerated 'mechanism only' partial missing; do
		case "$status" in "$old"* | *"**$old**"*) bad "$item: an old status word: $old" ;; esac
	done
	case "$status" in '**computed**'*) ;; *) continue ;; esac
	paths=$(printf '%s\n' "$line" | grep -o 'experiments/[A-Za-z0-9._/*-]*' | sed 's:/$::')
	if [ -z "$paths" ]; then
		bad "$item: computed, but names no bundled input under experiments/"
		continue
	fi
	for p in $paths; do
		# shellcheck disable=SC2086 # a glob is a name of several inputs
		if ls -d $p >/dev/null 2>&1; then ok; else bad "$item: $p does not exist"; fi
	done
done <"$T/rows"

# The five papers' tables list 56 rows in all;
# fewer means a table lost rows or the row pattern above stopped matching.
if [ "$rows" -ge 56 ]; then ok; else bad "only $rows rows read from $doc"; fi
# The status words are defined once, at the top.
for w in computed 'typed in' 'not reproduced'; do
	if grep -q "^- \*\*$w\*\*" "$doc"; then ok; else bad "$doc does not define \"$w\""; fi
done
finish
