#!/usr/bin/env python3
"""critpath_vs_hta.py: perfstudy's critical path beside HTA's on HTA's test traces.

    python3 tools/critpath_vs_hta.py CORPUS/hta/critical_path [PERFSTUDY] [HTA_SOURCE]

For each of HTA's critical-path test traces and the window HTA's own tests
analyse (an annotation instance, or the whole trace), writes a copy of the
trace with a ProfilerStep#1 range over that window (any older ProfilerStep
renamed), builds it with perfstudy and prints critical_path.csv's parts. With
HTA importable (HTA_SOURCE on the path, pandas and networkx installed) it
also runs HTA's critical_path_analysis on the same window and prints its
path length and breakdown by bound_by. Nothing of HTA is copied: it is
imported. The numbers of a run are recorded in README.md (critical_path.csv).
"""
import csv
import glob
import gzip
import json
import os
import subprocess
import sys
import tempfile

CASES = [
    ("simple_add", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("alexnet", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("cuda_event_sync", "ProfilerStep", 0),
    ("cuda_event_sync_multi_stream", "", None),
]
# the events HTA reads (its window over the whole trace is their span)
CATS = ("cpu_op", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset", "user_annotation",
        "cuda_sync", "gpu_user_annotation")


def inject(src, dst, ann, inst):
    d = json.load(gzip.open(src))
    xs = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") in CATS]
    for e in xs:
        if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"):
            e["name"] = "Old" + e["name"]
    if ann:
        a = sorted((e for e in xs if ann in e["name"]), key=lambda e: e["ts"])[inst]
        start, end, pid, tid = a["ts"], a["ts"] + a["dur"], a["pid"], a["tid"]
    else:
        start = min(e["ts"] for e in xs)
        end = max(e["ts"] + e.get("dur", 0) for e in xs)
        op = next(e for e in xs if e.get("cat") == "cpu_op")
        pid, tid = op["pid"], op["tid"]
    d["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": pid,
                             "tid": tid, "ts": start, "dur": end - start})
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "w") as f:
        json.dump(d, f)
    return end - start


def hta(corpus, name, ann, inst):
    os.environ["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"] = "1"
    from hta.trace_analysis import TraceAnalysis
    r = TraceAnalysis(trace_dir=os.path.join(corpus, name)).critical_path_analysis(
        rank=0, annotation=ann, instance_id=inst)
    if r is None or not r[1]:
        return None
    df = r[0].get_critical_path_breakdown()
    return int(df.duration.sum()), {k: int(v) for k, v in df.groupby("bound_by").duration.sum().items() if k}


def main():
    corpus = sys.argv[1]
    perfstudy = sys.argv[2] if len(sys.argv) > 2 else "./perfstudy"
    if len(sys.argv) > 3:
        sys.path.insert(0, sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        for name, ann, inst in CASES:
            src = glob.glob(os.path.join(corpus, name, "*.json.gz"))[0]
            window = inject(src, os.path.join(tmp, "in", name, "trace.json"), ann, inst)
        subprocess.run([perfstudy, "build", "-q", "-o", os.path.join(tmp, "out")] +
                       [os.path.join(tmp, "in", n) for n, _, _ in CASES], check=True)
        rows = {r["run"]: r for r in csv.DictReader(open(os.path.join(tmp, "out", "default", "data",
                                                                        "critical_path.csv")))}
        for name, ann, inst in CASES:
            r = rows[name]
            print(f"{name}: window {r['step_us']} us; perfstudy compute {r['compute_us']} memory {r['memory_us']}"
                  f" host {r['host_us']} idle {r['idle_us']}")
            try:
                h = hta(corpus, name, ann, inst)
            except ImportError as e:
                h = f"not run ({e})"
            print(f"  HTA: {h}")


if __name__ == "__main__":
    main()
