#!/usr/bin/env python3
"""roofline_check.py GOLDEN OP_ROOFLINE_CSV: op_roofline.csv's FLOPs and bytes against TraceLens's.

GOLDEN is tests/golden/op_roofline/tracelens_ops.csv (the real TraceLens's perf
model on the bundled h200 1-GPU traces; tracelens_ops.py made it). Every row of
the CSV for a run the golden covers, of an operator it prices, must be one of the golden's (run, op,
shapes, dtype) with flops_per_call and bytes_per_call within 1 %, and every
golden row must have its row in the CSV but those of operators that launch no
kernel themselves (aten::layer_norm around aten::native_layer_norm, and the
float aten::addmm that autocast wraps around the bf16 one). Prints one line per disagreement and "N rows checked"; exits 1 on any.
"""
import csv
import sys

gold = {}
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        gold[(r["run"], r["op"], r["shapes"], r["dtype"])] = (float(r["flops_per_call"]), float(r["bytes_per_call"]))
runs = {k[0] for k in gold}
ops = {k[1] for k in gold}  # the operators TraceLens prices (aten::gelu it does not)
bad = 0
seen = set()
n = 0
with open(sys.argv[2]) as f:
    for r in csv.DictReader(f):
        if r["run"] not in runs or r["rank"] != "0" or r["op"] not in ops:
            continue
        key = (r["run"], r["op"], r["shapes"], r["dtype"])
        n += 1
        if key not in gold:
            print("not in TraceLens's: %s" % (key,))
            bad += 1
            continue
        seen.add(key)
        for name, want, got in (("flops", gold[key][0], float(r["flops_per_call"])),
                                ("bytes", gold[key][1], float(r["bytes_per_call"]))):
            if abs(got - want) > 0.01 * want:
                print("%s %s: %g, TraceLens %g" % (key, name, got, want))
                bad += 1
for key in sorted(gold):
    # not required: aten::layer_norm, the wrapper whose kernels native_layer_norm launches, and the
    # float aten::addmm that autocast wraps around the bf16 one (neither launches a kernel itself)
    if key[1] == "aten::layer_norm" or (key[1] == "aten::addmm" and key[3] == "float"):
        continue
    if key not in seen:
        print("missing from op_roofline.csv: %s" % (key,))
        bad += 1
print("%d rows checked" % n)
sys.exit(1 if bad else 0)
