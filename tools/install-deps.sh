#!/bin/sh
# install-deps.sh: installs the Debian 12 packages perfstudy needs that are
# missing. "build": compiler, libraries, fonts, xz-utils (`make example`
# unpacks the traces kept as .tar.xz). "test": also what the test
# suite uses (python3 for the independent reference, sqlite3, chromium for
# the site's browser test, valgrind, poppler-utils for pdffonts/pdftoppm,
# strace for t_inject.sh, clang and its libFuzzer runtime for `make fuzz`,
# slurm-wlm (slurmctld, slurmd, sbatch) and munge for t_slurm.sh's one-node
# Slurm).
# Runs apt-get only when something is
# missing; uses sudo when not root.
set -eu
BUILD="make gcc g++ xz-utils pkg-config libyaml-dev libsqlite3-dev libcairo2-dev libctemplate-dev libxml2-dev zlib1g-dev libsimdjson-dev libisal-dev libdeflate-dev libprotobuf-c-dev protobuf-c-compiler fonts-dejavu-core"
TEST="python3 sqlite3 chromium valgrind poppler-utils strace clang libclang-rt-14-dev slurm-wlm munge"
case "${1:-build}" in
build) want=$BUILD ;;
test) want="$BUILD $TEST" ;;
*) echo "usage: $0 build|test" >&2; exit 2 ;;
esac
missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends $missing
