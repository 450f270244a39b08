#!/bin/bash
# run.sh: runs every end-to-end test script tests/e2e/t_*.sh, each with its
# own tally; fails if any failed (after `make unpack`, which the example's
# manifests need, as make's e2e targets do). Cases that need ../shared/corpus or
# Chromium skip when those are absent.
cd "$(dirname "$0")"
# the example's traces kept as .tar.xz, unpacked as make's e2e targets do
make -s -C ../.. unpack || exit 1
status=0
for t in t_*.sh; do
	bash "$t" || status=1
done
exit $status
