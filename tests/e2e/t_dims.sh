#!/bin/bash
# t_dims.sh: operators' "Input Dims" (record_shapes=True) into cpu_ops.dims_id
# (issue #39): compact text, one bracket per input, NULL where absent or not
# a list of integer lists, cut after 256 bytes at a whole input with ",...";
# "External id" still read whichever of the two comes first, and keys
# written with escapes still found. Then "Input type" and "Concrete Inputs"
# into memory_ops, and lists of tensors into model_ops.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/d"
long=$(python3 -c 'print(", ".join("[%d, 1024, 768]" % i for i in range(100, 140)))')
cat > "$T/d/rank0.json" <<JSON
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "A", "ts": 0, "dur": 1, "tid": 1, "args": {"External id": 1, "Input Dims": [[36, 1024], [50257, 1024]], "Ev Idx": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "B", "ts": 2, "dur": 1, "tid": 1, "args": {"Input Dims": [[8, 1024], [], [ 3 ]], "External id": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "C", "ts": 4, "dur": 1, "tid": 1, "args": {"External id": 3, "Input Dims": [[], []]}},
 {"ph": "X", "cat": "cpu_op", "name": "D", "ts": 6, "dur": 1, "tid": 1, "args": {"External id": 4, "Input Dims": [[[2, 3], [4]]]}},
 {"ph": "X", "cat": "cpu_op", "name": "E", "ts": 8, "dur": 1, "tid": 1, "args": {"External id": 5, "Input Dims": [["a"]]}},
 {"ph": "X", "cat": "cpu_op", "name": "F", "ts": 10, "dur": 1, "tid": 1, "args": {"External id": 6, "Input\u0020Dims": [[7]]}},
 {"ph": "X", "cat": "cpu_op", "name": "G", "ts": 12, "dur": 1, "tid": 1, "args": {"External id": 7, "Input Dims": [$long]}},
 {"ph": "X", "cat": "cpu_op", "name": "H", "ts": 14, "dur": 1, "tid": 1, "args": {"External id": 8}},
 {"ph": "X", "cat": "cpu_op", "name": "I", "ts": 16, "dur": 1, "tid": 1, "args": {"External id": 9, "Input Dims": "[[1]]"}},
 {"ph": "X", "cat": "kernel", "name": "K", "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7, "Input Dims": [[5]]}}
]}
JSON
if $PERFSTUDY build -q "$T/d" -o "$T/o" 2>"$T/err"; then
	got=$(sqlite3 "$T/o/perfstudy.db" "SELECT n.name, c.external_id, coalesce(d.name, 'NULL') FROM cpu_ops c
		JOIN names n ON n.id = c.name_id LEFT JOIN names d ON d.id = c.dims_id ORDER BY c.start_ns")
	cut=$(python3 -c '
s = ",".join("[%d,1024,768]" % i for i in range(100, 140))
c = s.rfind("],", 0, 253)
print(s[:c + 1] + ",...")')
	want="A|1|[36,1024],[50257,1024]
B|2|[8,1024],[],[3]
C|3|NULL
D|4|NULL
E|5|NULL
F|6|[7]
G|7|$cut
H|8|NULL
I|9|NULL"
	[ "$got" = "$want" ] && ok || bad "cpu_ops dims: got $got"
else
	bad "build: $(cat "$T/err")"
fi

# "Input type" and "Concrete Inputs" (issue #52 item 5) into memory_ops.types_id and concrete_id, the
# operators around a GPU allocation (one [memory] event at 21 us inside each): the strings joined by ",";
# one with a quote, a "," outside brackets or unbalanced brackets is "?"; all empty or not a list of
# strings: NULL; read whichever order the args come in (after "Input Dims" here); longer than 256 bytes:
# cut after the last whole string that leaves room for ",...". By hand for P, Q, R, S, T:
#   P: types c10::BFloat16,long int,,Scalar; concrete [8, 1024],15,,False
#   Q: types ?,float (the first has a quote); concrete ?,?,[1] ("1,2" has a comma outside brackets, "[2" is
#      unbalanced)
#   R: types NULL (all empty); concrete NULL (not strings)
#   S: types: 40 strings "c10::BFloat16" (13 bytes): the cut keeps 18 (18 x 14 - 1 = 251; 19 would be 265),
#      then ",..."
mkdir -p "$T/t"
cat > "$T/t/rank0.json" <<JSON
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "P", "ts": 20, "dur": 5, "tid": 1, "args": {"External id": 1, "Input Dims": [[8, 1024]], "Input type": ["c10::BFloat16", "long int", "", "Scalar"], "Concrete Inputs": ["[8, 1024]", "15", "", "False"]}},
 {"ph": "X", "cat": "cpu_op", "name": "Q", "ts": 20, "dur": 4, "tid": 1, "args": {"External id": 2, "Input type": ["a\\"b", "float"], "Concrete Inputs": ["1,2", "[2", "[1]"]}},
 {"ph": "X", "cat": "cpu_op", "name": "R", "ts": 20, "dur": 3, "tid": 1, "args": {"External id": 3, "Input type": ["", ""], "Concrete Inputs": [1, 2]}},
 {"ph": "X", "cat": "cpu_op", "name": "S", "ts": 20, "dur": 2, "tid": 1, "args": {"External id": 4, "Input type": [$(python3 -c 'print(", ".join(["\"c10::BFloat16\""] * 40))')]}},
 {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "tid": 1, "ts": 21, "args": {"Total Reserved": 4096, "Total Allocated": 512, "Bytes": 512, "Device Id": 0, "Device Type": 1, "Addr": 1}},
 {"ph": "X", "cat": "kernel", "name": "K", "ts": 21, "dur": 1, "args": {"device": 0, "stream": 7}}
]}
JSON
if $PERFSTUDY build -q "$T/t" -o "$T/to" 2>"$T/err"; then
	got=$(sqlite3 "$T/to/perfstudy.db" "SELECT n.name, coalesce(t.name, 'NULL'), coalesce(c.name, 'NULL') FROM memory_ops m
		JOIN names n ON n.id = m.name_id LEFT JOIN names t ON t.id = m.types_id LEFT JOIN names c ON c.id = m.concrete_id
		ORDER BY n.name")
	s18=$(python3 -c 'print(",".join(["c10::BFloat16"] * 18) + ",...")')
	want="P|c10::BFloat16,long int,,Scalar|[8, 1024],15,,False
Q|?,float|?,?,[1]
R|NULL|NULL
S|$s18|NULL"
	[ "$got" = "$want" ] && ok || bad "memory_ops types and concrete inputs: got $got"
else
	bad "build with types: $(cat "$T/err")"
fi
# Lists of tensors (a TensorList, issue #56) in model_ops.dims_id as "{T:E}", T tensors and E elements in
# all, a 0-d tensor ([]) counting one; cpu_ops (the outermost operators) leaves them NULL. By hand:
#   U aten::_foreach_mul_ [[[2, 3], [4]], []]: 2 tensors of 6 + 4 = 10 elements: {2:10},[]
#   V aten::_foreach_add_ [[[], [], []], [5, 5]]: three 0-d tensors: {3:3},[5,5]
#   W aten::_foreach_sqrt [[[2, -3]]]: a negative size: NULL (no row: model_ops keeps calls with dims)
#   X aten::_foreach_div_ [[[1], 5]]: a list mixing shapes and sizes: NULL
#   Y aten::_fused_adamw_ with 30 lists of [[1000, 1000], [7]] ({2:1000007}, 11 bytes and a comma each):
#     cut after the last whole input that leaves room for ",...": 21 x 12 - 1 = 251 bytes (22 would be
#     263), then ",..."
#   Z aten::_foreach_mul_ [[[0, 8]]]: an empty tensor: {1:0}
mkdir -p "$T/l"
cat > "$T/l/rank0.json" <<JSON
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_mul_", "ts": 0, "dur": 1, "tid": 1, "args": {"External id": 1, "Input Dims": [[[2, 3], [4]], []]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_add_", "ts": 2, "dur": 1, "tid": 1, "args": {"External id": 2, "Input Dims": [[[], [], []], [5, 5]]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_sqrt", "ts": 4, "dur": 1, "tid": 1, "args": {"External id": 3, "Input Dims": [[[2, -3]]]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_div_", "ts": 6, "dur": 1, "tid": 1, "args": {"External id": 4, "Input Dims": [[[1], 5]]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_fused_adamw_", "ts": 8, "dur": 1, "tid": 1, "args": {"External id": 5, "Input Dims": [$(python3 -c 'print(", ".join(["[[1000, 1000], [7]]"] * 30))')]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_mul_", "ts": 10, "dur": 1, "tid": 1, "args": {"External id": 6, "Input Dims": [[[0, 8]]]}},
 {"ph": "X", "cat": "kernel", "name": "K", "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7}}
]}
JSON
if $PERFSTUDY build -q "$T/l" -o "$T/lo" 2>"$T/err"; then
	got=$(sqlite3 "$T/lo/perfstudy.db" "SELECT m.start_ns / 1000, n.name, coalesce(d.name, 'NULL') FROM model_ops m
		JOIN names n ON n.id = m.name_id LEFT JOIN names d ON d.id = m.dims_id ORDER BY m.start_ns")
	cut=$(python3 -c 'print(",".join(["{2:1000007}"] * 21) + ",...")')
	want="0|aten::_foreach_mul_|{2:10},[]
2|aten::_foreach_add_|{3:3},[5,5]
8|aten::_fused_adamw_|$cut
10|aten::_foreach_mul_|{1:0}"
	[ "$got" = "$want" ] && ok || bad "model_ops lists of tensors: got $got"
	got=$(sqlite3 "$T/lo/perfstudy.db" "SELECT count(*) FROM cpu_ops WHERE dims_id IS NOT NULL")
	[ "$got" = 0 ] && ok || bad "cpu_ops kept $got lists of tensors"
else
	bad "build with lists of tensors: $(cat "$T/err")"
fi
finish
