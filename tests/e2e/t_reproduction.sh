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
# Nothing says a manifest is missing from `make example` when the Makefile's example target builds it
# (issue 42: the footer and the Figure 6 row said so of h100x4-papers after it was added).
example=$(sed -n '/^example:/,/-o out$/p' Makefile)
for m in $(echo "$example" | grep -o 'experiments/[^ ]*\.yaml'); do
	d=$(dirname "$m")
	if grep -n "not\( yet\)\? in the Makefile\|[Nn]ot in \`make example\`\|not yet in the Makefile" "$doc" | grep -qF "${m#experiments/}"; then
		bad "$doc says $m is not in make example; the Makefile builds it"
	else ok; fi
	if [ -f "$d/SOURCE.md" ] && grep -q 'no manifest\( builds them\)\?\( yet\)\?\.\?$\|builds them yet' "$d/SOURCE.md"; then
		bad "$d/SOURCE.md says no manifest builds its runs; $m does"
	else ok; fi
done
tr '\n' ' ' < "$doc" | grep -q 'not yet in the Makefile\|no table sums a run' &&
	bad "$doc: a stale footer (manifests not in the Makefile, no table of time to train)" || ok
# A SOURCE.md must not call an item not regenerated that a row marks computed: 003's Figure 6.
if grep -q '^| Figure 6 | phases vs NCCL socket settings .*| \*\*computed\*\*' "$doc"; then
	! tr '\n' ' ' < experiments/begoli-003/SOURCE.md | grep -q 'Figure 6 ([^)]*) is not regenerated\.' && ok ||
		bad "experiments/begoli-003/SOURCE.md says Figure 6 is not regenerated; $doc marks it computed"
fi
# Issue #54 item 5: a row says a collective is observed only where a bundled trace carries it. The
# communication-volume row names h100x4-zero's traces (FSDP, ZeRO-1/2): count each collective there
# from the raw events ("Collective name" of record_param_comms, and NCCL's kernel names).
row=$(grep '^| Communication volume table |' "$doc")
traces=$(ls experiments/h100x4-papers/traces/gpt2-*/rank*.pt.trace.json.gz 2>/dev/null)
if [ -z "$traces" ]; then
	skipped "no h100x4-zero traces to look for a Reduce in"
else
	# shellcheck disable=SC2086 # the list of traces
	reduces=$(zcat $traces | grep -oE '"Collective name": *"reduce"|ncclDevKernel_Reduce[^S]' | wc -l)
	# shellcheck disable=SC2086
	rs=$(zcat $traces | grep -oE '"Collective name": *"_reduce_scatter_base"' | wc -l)
	[ "$rs" -gt 0 ] && ok || bad "h100x4-zero's traces hold no ReduceScatter"
	if [ "$reduces" -eq 0 ]; then
		printf '%s\n' "$row" | grep -qiE 'Reduce (is|are) observed|and Reduce are observed' &&
			bad "$doc: the communication-volume row says Reduce is observed; no h100x4-zero trace holds one" || ok
		printf '%s\n' "$row" | grep -q 'Reduce is not' && ok ||
			bad "$doc: the communication-volume row does not say Reduce is not observed"
	fi
fi
# 003's Figure 4 and NVLink-against-PCIe: another quantity is shown, so the status is "not reproduced;
# a substitute shown" naming the substitute's experiment, not "computed, of another quantity".
grep -q '\*\*computed\*\*, of another quantity' "$doc" && bad "$doc: a row is computed \"of another quantity\"" || ok
for item in 'Figure 4 | time per phase' 'Text and Fig. 4: NVLink'; do
	st=$(grep "^| $item" "$doc" | awk -F' [|] ' '{ print $NF }')
	case "$st" in
	'**not reproduced**; a substitute shown: '*'`h200`'* | '**not reproduced**; a substitute shown: '*'`h200x2-p2p`'*) ok ;;
	*) bad "$doc: 003's '$item' is not \"not reproduced; a substitute shown\" with the substitute named: ${st:0:80}" ;;
	esac
done
# Issue #54 item 10: the Fig (b)/Fig 10 row named no bundled model sizes, though h200x2-zero's
# dispatch.csv has four (its manifest's runs of distinct models).
row=$(grep '^| Figure (b), Figure 10 |' "$doc")
sizes=$(grep -o 'name: GPT [0-9.]*[MB]' experiments/h200x4-parallel/zero.yaml | sort -u | wc -l)
if [ "$sizes" -ge 2 ]; then
	printf '%s\n' "$row" | grep -qF '`h200x2-zero`' && ok || bad "$doc: Fig (b)/Fig 10 does not name h200x2-zero's $sizes model sizes"
	printf '%s\n' "$row" | grep -q "models ([^)]*) are not bundled" && bad "$doc: Fig (b)/Fig 10 says the sizes are not bundled" || ok
fi
# Issue #54 item 8 added pipeline_schedules.csv (GPipe against 1F1B in h200x2-parallel): a row names it,
# computed from parallel.yaml's runs, and the step times it quotes are the logs' unprofiled medians,
# counted here from the raw logs (iterations 3 on, outside truth.json's profiled window and the one
# before and after it), GPipe's before 1F1B's at each micro-batch count.
row=$(grep '^| .*| `pipeline_schedules.csv`' "$doc")
if [ -z "$row" ]; then
	bad "$doc: no row for pipeline_schedules.csv"
else
	case "$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $NF }')" in '**computed**'*) ok ;; *) bad "$doc: pipeline_schedules.csv's row is not computed" ;; esac
	printf '%s\n' "$row" | grep -qF 'experiments/h200x4-parallel/parallel.yaml' && ok ||
		bad "$doc: pipeline_schedules.csv's row does not name experiments/h200x4-parallel/parallel.yaml"
	P=experiments/h200x4-parallel/par
	if [ -f "$P/pp2-gpipe-m4/truth.json" ]; then
		want=$(python3 - "$P" <<'EOF'
import json, os, re, statistics, sys
P = sys.argv[1]
def step_ms(run):
    t = json.load(open(os.path.join(P, run, "truth.json")))
    prof, ms = t["profiled_iterations"], {}
    for line in open(os.path.join(P, run, "rank%d.log" % t["log_rank"])):
        m = re.match(r"\s*iteration\s+(\d+)/.*elapsed time per iteration \(ms\): ([0-9.]+)", line)
        if m:
            ms[int(m.group(1))] = float(m.group(2))
    v = [x for i, x in ms.items() if i >= 3 and not prof[0] - 2 <= i <= prof[-1] + 1]
    return "%.1f" % statistics.median(v), len(v)
for m in (4, 8):
    (g, n), (f, k) = step_ms("pp2-gpipe-m%d" % m), step_ms("pp2-1f1b-m%d" % m)
    print(g, "against", f, "ms", n, k)
EOF
)
		while read -r a against b ms n k; do
			printf '%s\n' "$row" | grep -qF "$a $against $b $ms" && ok ||
				bad "$doc: pipeline_schedules.csv's row does not say \"$a $against $b $ms\" (the logs' medians)"
			printf '%s\n' "$row" | grep -qF "$n iterations each" && [ "$n" = "$k" ] && ok ||
				bad "$doc: pipeline_schedules.csv's row does not say $n iterations each"
		done <<<"$want"
	else
		skipped "no h200x2-parallel logs (make unpack)"
	fi
fi
# The status words are defined once, at the top.
for w in computed 'typed in' 'not reproduced'; do
	if grep -q "^- \*\*$w\*\*" "$doc"; then ok; else bad "$doc does not define \"$w\""; fi
done
finish
