#!/bin/bash
# t_contracts.sh: every table perfstudy makes has one typed contract (an
# X-macro column list in its maker's header, util/table.h), its maker
# passes TABLE_SCHEMA(<that list>) to table_new, and docs/output.md's table
# of tables gives each written table's columns as its contract lists them
# (tests/e2e/contracts_check.py). With t_output_doc.sh (the docs' rows are
# the pages' Methods and the CSVs' header lines), the contract, the CSV,
# the Methods and the docs cannot drift apart. Then the check must fail on
# a doc, a maker and a contract each changed by one word.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }
CHECK=tests/e2e/contracts_check.py

python3 $CHECK src docs/output.md > "$T/out" 2>&1 && ok || bad "contracts and docs disagree: $(head -20 "$T/out")"
n=$(grep -c '^| `[a-z_0-9]*\.csv` |' docs/output.md)
grep -q "; $n documented with its contract's columns" "$T/out" && ok || bad "want all $n documented tables checked: $(cat "$T/out")"

# A doc whose steps.csv says step_ms where the contract says step_us.
sed 's/^| `steps.csv` | `run,rank,step,step_us`/| `steps.csv` | `run,rank,step,step_ms`/' docs/output.md > "$T/doc.md"
cmp -s docs/output.md "$T/doc.md" && bad "the doc edit changed nothing"
python3 $CHECK src "$T/doc.md" > "$T/out" 2>&1 && bad "a doc with another column passed" || ok
grep -q "steps.csv's columns run,rank,step,step_ms are not its contract" "$T/out" && ok || bad "wrong complaint: $(cat "$T/out")"

# A maker that passes a schema string instead of its contract.
cp -r src "$T/src1"
f=$(grep -rl 'table_new("steps",' "$T/src1")
[ -n "$f" ] && ok || bad "no maker of steps.csv found"
perl -0pi -e 's/(table_new\("steps",[^;]*?)TABLE_SCHEMA\(\w+\)/$1"run:text,rank:int,step:int,step_us:us"/s' "$f"
python3 $CHECK "$T/src1" docs/output.md > "$T/out" 2>&1 && bad "a schema string passed" || ok
grep -q 'table steps is made from .*not TABLE_SCHEMA' "$T/out" && ok || bad "wrong complaint: $(cat "$T/out")"

# A contract renamed in its header while the docs keep the old name.
cp -r src "$T/src2"
h=$(grep -rl '^#define STEP_STATS_COLUMNS(X)' "$T/src2")
[ -n "$h" ] && ok || bad "no header defines STEP_STATS_COLUMNS"
sed -i 's/"median_us", us)/"med_us", us)/' "$h"
python3 $CHECK "$T/src2" docs/output.md > "$T/out" 2>&1 && bad "a renamed contract column passed" || ok
grep -q "step_stats.csv's columns .* are not its contract STEP_STATS_COLUMNS's" "$T/out" && ok || bad "wrong complaint: $(cat "$T/out")"
finish
