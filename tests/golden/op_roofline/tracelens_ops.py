#!/usr/bin/env python3
"""tracelens_ops.py: the golden FLOPs and bytes of op_roofline.csv, from the real TraceLens.

Usage: tracelens_ops.py TRACELENS_DIR > tracelens_ops.csv   (run from the repository root)

TRACELENS_DIR is a checkout of github.com/AMD-AGI/TraceLens (the commit in
README.md). This runs its TreePerfAnalyzer over the bundled h200 1-GPU traces
and asks its perf model, as generate_perf_report_pytorch does, for every
GEMM, SDPA and normalisation operator: compute_perf_metrics(event) for the forward events,
and compute_perf_metrics(event, bwd=True) for an SDPA forward event, whose
backward TraceLens prices from the forward's shapes (written under the
linked backward event's name and shapes, as perfstudy names that call).
One row per run, operator, input shapes and the type of its first matrix
(an autocast aten::addmm of float inputs holds a bf16 one of the same shapes): FLOPs and bytes per call
(TraceLens's GFLOPS x 1e9 and Data Moved (MB) x 2^20). Needs pandas and
tqdm (Debian: python3-pandas python3-tqdm); not a test dependency.
"""
import contextlib
import sys
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
from TraceLens import TreePerfAnalyzer  # noqa: E402
from TraceLens.PerfModel.torch_op_mapping import build_sheet_category_to_op_names  # noqa: E402

TRACES = [
    ("gpt2-1gpu", "experiments/h200/traces/gpt2-124m/1gpu/rank0.pt.trace.json.gz"),
    ("bert-1gpu", "experiments/h200/traces/bert-base/1gpu/rank0.pt.trace.json.gz"),
]


def shapes(ev):
    return ",".join("[" + ",".join(str(x) for x in d) + "]" for d in ev["args"]["Input Dims"])


rows = {}
for run, path in TRACES:
    with contextlib.redirect_stdout(sys.stderr):  # TraceLens's progress lines
        pa = TreePerfAnalyzer.from_file(profile_filepath=path)
    cats = build_sheet_category_to_op_names(pa.op_to_perf_model_class_map)
    for cat in ("GEMM", "SDPA", "Normalization"):
        for ev in [e for e in pa.tree.events if e["name"] in cats.get(cat, [])]:
            todo = [(ev, False, ev)]
            if cat == "SDPA":
                bwd = []
                stack = list(pa.tree.get_subtree_bwd_events(ev["UID"]))
                while stack:  # the autograd wrapper's descendants: the aten backward op
                    b = pa.tree.get_UID2event(stack.pop())
                    if b.get("cat") == "cpu_op" and b["name"].endswith("_backward"):
                        bwd.append(b)
                    stack.extend(b.get("children", []))
                if bwd:
                    todo.append((ev, True, bwd[0]))
            for fwd, is_bwd, named in todo:
                m = pa.compute_perf_metrics(fwd, bwd=is_bwd)
                a_at = 1 if named["name"] in ("aten::addmm", "aten::baddbmm", "aten::native_layer_norm_backward") or is_bwd else 0
                key = (run, named["name"], shapes(named), named["args"]["Input type"][a_at])
                val = (m["GFLOPS"] * 1e9, m["Data Moved (MB)"] * 1024 * 1024)
                old = rows.get(key)
                if old and (abs(old[0] - val[0]) > 1e-6 * val[0] or abs(old[1] - val[1]) > 1e-6 * val[1]):
                    sys.exit(f"{key}: two calls priced differently: {old} {val}")
                rows[key] = val

print("run,op,shapes,dtype,flops_per_call,bytes_per_call")
for (run, op, shp, dtype), (f, b) in sorted(rows.items()):
    print(f'{run},{op},"{shp}",{dtype},{f:.0f},{b:.0f}')
