#!/bin/bash
# t_slurm.sh: the Slurm recipe of docs/cli.md on a real one-node Slurm. As
# root, with Debian's slurm-wlm and munge installed (tools/install-deps.sh
# test), it starts munged, slurmctld and slurmd on a configuration of its
# own in $T (ports 16817-16818 moved by its process id, so that two runs do
# not meet), takes the two code blocks of the recipe from docs/cli.md as
# they are written there, with only the study's directory, the array's size
# and the resources put to what this machine has (one CPU a job, no --mem),
# runs them (an sbatch --array of `perfstudy ingest --shard I/N` tasks and a
# merge job that waits for them with afterok), and checks that the site is
# the one `perfstudy build` writes: same files, same bytes, same rows in
# the store. Every daemon it started is stopped when it ends. Skipped
# (SKIP, exit 0) when not root, when a program is missing, or when the
# daemons do not start (a container without the rights they need).
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
TOP=$(pwd)
PS=$(cd "$(dirname "$PERFSTUDY")" && pwd)/$(basename "$PERFSTUDY")

skip_out() { skipped "$1"; finish; exit; }
[ "$(id -u)" -eq 0 ] || skip_out "not root: Slurm's daemons are started as root"
for p in munged munge slurmctld slurmd sbatch sinfo squeue scontrol python3 sqlite3; do
	command -v "$p" > /dev/null || [ -x "/usr/sbin/$p" ] || skip_out "$p not installed (tools/install-deps.sh test)"
done
sbin() { command -v "$1" 2> /dev/null || echo "/usr/sbin/$1"; }

# Daemons: stopped by process id on every way out, then $T removed.
pids=()
stop() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	[ ! -f "$S/munge/pid" ] || kill "$(cat "$S/munge/pid")" 2> /dev/null
	for p in "${pids[@]}"; do wait "$p" 2> /dev/null; done
	rm -rf "$T"
}
S=$T/slurm
trap stop EXIT
mkdir -p "$S/state" "$S/spool" "$S/munge" "$S/log"
chmod 700 "$S/munge"
head -c 1024 /dev/urandom > "$S/munge/key"
chmod 400 "$S/munge/key"
# munged wants every directory above its socket searchable by all.
chmod 755 "$T" "$S"
port=$((16817 + 2 * ($$ % 2000)))
cat > "$S/slurm.conf" << EOF
ClusterName=perfstudy
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$S/slurm.conf
"$(sbin munged)" --force --key-file="$S/munge/key" --socket="$S/munge/sock" --pid-file="$S/munge/pid" \
	--log-file="$S/log/munged.log" --seed-file="$S/munge/seed" 2> "$S/log/munged.err" ||
	skip_out "munged does not start: $(cat "$S/log/munged.err")"
"$(sbin slurmctld)" -D -i > "$S/log/slurmctld.out" 2>&1 &
pids+=($!)
"$(sbin slurmd)" -D -N localhost > "$S/log/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 60); do
	if [ "$(sinfo -h -n localhost -o %T 2> /dev/null)" = idle ]; then up=1; break; fi
	sleep 0.5
done
[ $up = 1 ] || skip_out "Slurm does not start here: $(tail -n 3 "$S/log/slurmctld.log" "$S/log/slurmd.log" "$S/log/"*.out 2> /dev/null | tr '\n' ' ')"

# The study: 6 thin ranks of one DDP run, 3 shards.
N=3
D=$T/study
python3 tests/data/make_ranks.py 6 "$D/run" 4
printf 'version: 1\ntitle: Six thin ranks\nruns:\n  - id: ddp\n    gpus: 6\n    traces: run/rank*.json\n' > "$D/study.yaml"
(cd "$D" && "$PS" build -q study.yaml -o "$T/plain") 2> "$T/plain.err" || bad "plain build failed: $(cat "$T/plain.err")"

# The recipe, from docs/cli.md: the block that starts with ingest.sbatch's
# shebang, and the block after it that submits the array and the merge.
python3 - "$TOP/docs/cli.md" "$D/ingest.sbatch" "$T/submit.sh" << 'EOF'
import re, sys
blocks = re.findall(r"```sh\n(.*?)```", open(sys.argv[1]).read(), re.S)
i = next(i for i, b in enumerate(blocks) if b.startswith("#!/bin/bash\n# ingest.sbatch"))
open(sys.argv[2], "w").write(blocks[i])
open(sys.argv[3], "w").write(blocks[i + 1])
EOF
[ -s "$D/ingest.sbatch" ] && [ -s "$T/submit.sh" ] && ok || bad "no Slurm recipe in docs/cli.md"
grep -q '^perfstudy ingest ' "$D/ingest.sbatch" && grep -q -- '--shard "\$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT"' "$D/ingest.sbatch" &&
	grep -q 'sbatch --dependency=afterok:\$jid' "$T/submit.sh" && grep -q 'perfstudy merge' "$T/submit.sh" && ok ||
	bad "the recipe in docs/cli.md is not an array of ingest --shard tasks and a dependent merge"
# This machine's sizes; perfstudy by its path; the study where the recipe says /shared/study.
fit() {
	sed -i -e "s#/shared/study#$D#g" -e "s#--array=0-15#--array=0-$((N - 1))#g" \
		-e 's#--cpus-per-task=[0-9]*#--cpus-per-task=1#g' -e '/^#SBATCH --mem=/d' -e 's# --mem=[0-9]*G##g' \
		-e "s#perfstudy \(ingest\|merge\)#$PS \1#g" "$1"
}
fit "$D/ingest.sbatch"
fit "$T/submit.sh"
printf 'echo "$jid" > %s/jid\n' "$T" >> "$T/submit.sh"
(cd "$D" && bash -e "$T/submit.sh") > "$T/submit.out" 2>&1 || bad "submitting the recipe failed: $(cat "$T/submit.out")"
# Wait for every job to leave the queue (at most 10 minutes).
done_=0
for _ in $(seq 1200); do
	[ -z "$(squeue -h 2> /dev/null)" ] && { done_=1; break; }
	sleep 0.5
done
[ $done_ = 1 ] && ok || bad "jobs still queued after 10 minutes: $(squeue 2>&1)"
jid=$(cat "$T/jid" 2> /dev/null)
n=$(ls "$D/shards" 2> /dev/null | grep -c '^[0-9]*\.db$')
[ "$n" -eq $N ] && ok || bad "$n shards written, want $N: $(cat "$D"/slurm-*.out 2> /dev/null)"
[ -f "$D/site/index.html" ] || bad "the merge job wrote no site: $(cat "$D"/slurm-*.out 2> /dev/null)"

# The merged site is the plain build's.
dump() {
	sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta' ORDER BY name" |
		while read -r t; do sqlite3 "$1" ".dump $t"; done
}
if diff -r -x perfstudy.db "$T/plain" "$D/site" > "$T/diff" 2>&1; then ok; else bad "merged site differs from the plain build"; head -5 "$T/diff" >&2; fi
dump "$T/plain/perfstudy.db" > "$T/a.sql"
dump "$D/site/perfstudy.db" > "$T/b.sql" 2> /dev/null
if [ -s "$T/a.sql" ] && cmp -s "$T/a.sql" "$T/b.sql"; then ok; else bad "merged store differs from the plain build's"; diff "$T/a.sql" "$T/b.sql" 2>&1 | head -5 >&2; fi
[ -n "$jid" ] && ok || bad "no array job id from sbatch --parsable"
finish
