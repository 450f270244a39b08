#!/bin/bash
# t_merge_bounds.sh: `perfstudy merge` on shards whose events were changed
# after `perfstudy ingest --shard` wrote them (issue 43 item 15). merge
# replays a shard's events without parsing the trace, so it checks them as
# the readers check what they parse: a start whose end (start + duration)
# is past int64 (it overflowed in the store's sink and the rank loads), a
# rank, world size or device below -1 (unknown) is an error naming the
# shard, the table, the trace's position and the event, and nothing is
# written; a rank or device number up to INT32_MAX, which the readers take,
# merges as a build of the same trace does.
. "$(dirname "$0")/lib.sh"

P=$(cd "$(dirname "$PERFSTUDY")" && pwd)/$(basename "$PERFSTUDY")
if ! command -v python3 >/dev/null || ! python3 -c 'import sqlite3' 2>/dev/null; then
	skipped "python3 with sqlite3 not installed: no shard changed"
	finish
	exit
fi

# One rank, one step, a launch and a kernel, with numbers found again in the shard's bytes:
# rank 54321, device 23456, kernel start 1001234 ns (duration 3321), launch start 1000500 ns.
cat >"$T/t.json" <<'EOF'
{"distributedInfo": {"rank": 54321, "world_size": 1}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 50},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1000.5, "dur": 0.25, "args": {"correlation": 9}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1001.234, "dur": 3.321, "args": {"device": 23456, "stream": 7, "correlation": 9}}
]}
EOF
cd "$T" || exit 1
"$P" ingest -q --shard 0/1 -o shard.db t.json 2>err || bad "ingest failed: $(cat err)"

# forge NAME FMT OLD NEW: a copy of shard.db, NAME.db, with the first OLD (packed as struct FMT) in its batches made NEW.
forge() {
	python3 - "$@" <<'EOF' || bad "forge $1 failed"
import shutil, sqlite3, struct, sys
name, fmt, old, new = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shutil.copy('shard.db', name + '.db')
db = sqlite3.connect(name + '.db')
for rowid, data in db.execute('SELECT rowid, data FROM shard_batches ORDER BY position, seq').fetchall():
    if struct.pack(fmt, old) in data:
        db.execute('UPDATE shard_batches SET data = ? WHERE rowid = ?',
                   (data.replace(struct.pack(fmt, old), struct.pack(fmt, new), 1), rowid))
        db.commit()
        sys.exit(0)
sys.exit(1)
EOF
}

# refused NAME WHAT: merge of NAME.db exits 1, says "...event WHAT; the shard is damaged..." and writes nothing.
refused() {
	rm -rf o
	"$P" merge -q -o o "$1.db" t.json 2>err
	local rc=$?
	[ $rc -eq 1 ] && ok || bad "merge of $1.db: exit $rc, want 1"
	echo "$1.db: error: table shard_batches, rows of position 0 (trace 't.json'), event $2; the shard is damaged: run perfstudy ingest --shard 0/1 again" >want
	same want err "merge of $1.db"
	[ ! -e o ] && ok || bad "merge of $1.db: output written"
}

max=9223372036854775807
forge start '<q' 1001234 $((max - 100))
refused start "3: GPU activity 'k' starts outside -2^60 to 3 * 2^60 ns (ingest.h): start in ns ($((max - 100)))"
forge launch '<q' 1000500 $((max - 200))
refused launch "2: runtime call 'cudaLaunchKernel' starts outside -2^60 to 3 * 2^60 ns (ingest.h): start in ns ($((max - 200)))"
forge rank '<i' 54321 -7
refused rank "4: trace info 'kineto' has a rank below -1 (unknown) (-7)"
forge device '<i' 23456 -9
refused device "3: GPU activity 'k' has a device below -1 (unknown) (-9)"

# The same shard unchanged, and with rank and device 2147483000 (numbers a reader takes): merged as
# a build of the trace, the rank under its number (in 4 GiB of address space but under AddressSanitizer).
limit=ulimit
ldd "$P" 2>/dev/null | grep -q libasan && limit=true
forge bigrank '<i' 54321 2147483000
forge bigdev '<i' 23456 2147483000
for name in shard bigrank bigdev; do
	rm -rf o
	("$limit" -v 4194304 && exec "$P" merge -q -o o "$name.db" t.json) 2>err
	rc=$?
	[ $rc -eq 0 ] && ok || bad "merge of $name.db: exit $rc, want 0: $(head -c 300 err)"
	rank=54321
	[ $name = bigrank ] && rank=2147483000
	printf 'run,rank,step,step_us\nt.json,%s,1,50.000\n' $rank >want
	cut -d, -f1-4 o/default/data/critical_path.csv 2>/dev/null >got
	same want got "merge of $name.db: critical_path.csv"
done
dev=$(python3 -c 'import sqlite3; print(sqlite3.connect("o/perfstudy.db").execute("SELECT group_concat(DISTINCT device) FROM activities").fetchone()[0])')
[ "$dev" = 2147483000 ] && ok || bad "merge of bigdev.db: the kernel's device is $dev, want 2147483000"

finish
