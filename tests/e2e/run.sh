#!/bin/bash
# run.sh: runs every end-to-end test script tests/e2e/t_*.sh, each with its
# own tally; fails if any failed. Cases that need ../shared/corpus or
# Chromium skip when those are absent.
cd "$(dirname "$0")"
status=0
for t in t_*.sh; do
	bash "$t" || status=1
done
exit $status
