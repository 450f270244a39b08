#!/usr/bin/env python3
"""hta_goldens.py: runs the real Holistic Trace Analysis (HTA) on the bundled
example's traces and on HTA's own test traces, and writes its numbers as the
goldens perfstudy's HTA-compatible tables are tested against.

    python3 tools/hta_goldens.py [--jobs=N] HTA_SOURCE [CORPUS_HTA] [OUT_DIR]

HTA_SOURCE: a checkout of github.com/facebookresearch/HolisticTraceAnalysis
(imported from there, never copied; needs pandas, plotly, networkx).
CORPUS_HTA: ../shared/corpus/hta (its traces that HTA accepts are added).
OUT_DIR: tests/golden/hta. Writes there, one row per run and rank:

  temporal.csv     get_temporal_breakdown: idle, compute, non-compute and
                   kernel (span) time in us, as HTA returns them (floats)
  overlap.csv      get_comm_comp_overlap: comp_comm_overlap_pctg, the percentage
                   HTA returns, rounded by it to 0.01 (empty when the rank has
                   no communication: HTA's 0/0)
  kernel_types.csv get_gpu_kernel_breakdown(include_memory_kernels=True), the
                   kernel-type table: the time of each type and overlap of
                   types over the run's ranks, us
  idle_time.csv    get_idle_time_breakdown(all ranks, all streams): per
                   stream, host_wait / kernel_wait / other idle time in us
                   (HTA rounds them to 0.01 us) and the ratio
  launch_stats.csv get_cuda_kernel_launch_stats(all ranks) reduced to one row
                   per rank: the number of launches HTA pairs with their GPU
                   event, sums of cpu_duration, gpu_duration and launch_delay,
                   the medians and maxima, and the three counts HTA's figures
                   show at its default cutoffs: cpu_duration > 50 us,
                   launch_delay > 100 us, and short kernels (cpu_duration
                   <= 50 us and gpu_duration < cpu_duration)
  SOURCE.md        the HTA commit (git rev-parse in HTA_SOURCE, else the
                   HTA_COMMIT environment variable), the Python and pandas
                   versions, and each run's trace files with their SHA-256

Every CSV starts with a mode column: `hta` is HTA as it comes (which rounds
the ts up and the end down to whole microseconds of a trace whose ts are
fractional, trace_parser.round_down_time_stamps); `exact` is the same HTA with
that rounding off (its own HTA_DISABLE_NS_ROUNDING option), so each event keeps
the times the JSON gives. Python runs with -O (the script re-executes itself
so): HTA's get_temporal_breakdown asserts non_compute_time >= 0, which the
rounding breaks on some traces; SOURCE.md names the rows where it would have
stopped, and the numbers are HTA's all the same.

Times are microseconds as HTA computes them on the JSON's ts/dur. Each run is
one HTA TraceAnalysis over the run's directory (every rank of a run together,
as a user would call it), so the symbol table and the ProfilerStep count that
HTA's step filter looks at span the run's ranks.
"""
import csv
import hashlib
import io
import json
import logging
import os
import platform
import subprocess
import sys
import tempfile

# The bundled study (experiments/h200/study.yaml): run id -> directory.
H200 = [(f"{m}-{r}", f"experiments/h200/traces/{d}/{r}")
        for m, d in (("gpt2", "gpt2-124m"), ("bert", "bert-base"))
        for r in ("1gpu", "2gpu-ddp", "2gpu-zero1", "4gpu-ddp", "4gpu-zero1")]

# HTA's test traces (../shared/corpus/hta/SOURCE.md) with GPU kernels; the
# run id is the directory with '/' as '_'. Traces HTA rejects or that have
# no kernels are listed in SOURCE.md by the run (an exception is noted).
CORPUS = ["trace_filter", "nccl_parser_config", "ns_resolution_trace", "negative_queue_length_values_check",
          "df_index_resolver", "trace_diff/control", "trace_diff/test", "trace_compare/base", "trace_compare/test",
          "amd_trace", "triton_example", "critical_path/alexnet", "critical_path/simple_add",
          "critical_path/cuda_event_sync", "critical_path/cuda_event_sync_multi_stream", "trace_file_list",
          "mtia_trace_single_rank", "mtia_inference_trace", "_history/with_gpu_user_annotation",
          "distributed_info_unavailable", "execution_trace", "cupti_profiler", "rank_non_gpu", "cpu_only"]

MODES = ("hta", "exact")
RUNTIME_CUTOFF_US = 50      # HTA's defaults of get_cuda_kernel_launch_stats
LAUNCH_DELAY_CUTOFF_US = 100


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def num(x):
    """A float as text with every digit pandas computed; empty for NaN."""
    x = float(x)
    return "" if x != x else repr(x)


def trace_dir(path):
    """HTA reads every .gz/.json of a directory: hand it only the traces."""
    files = sorted(f for f in os.listdir(path) if f.endswith(".json.gz") or f.endswith(".json"))
    return files


def analyze(ta, key, out):
    """Appends HTA's numbers for one run; key = [mode, run] starts each row."""
    import pandas as pd  # noqa: F401 (HTA's own dependency)
    ranks = sorted(ta.t.get_ranks())
    t = ta.get_temporal_breakdown(visualize=False)
    for _, r in t.sort_values("rank").iterrows():
        out["temporal"].append(key + [int(r["rank"]), num(r["idle_time(us)"]), num(r["compute_time(us)"]),
                                num(r["non_compute_time(us)"]), num(r["kernel_time(us)"])])
    o = ta.get_comm_comp_overlap(visualize=False)
    for _, r in o.sort_values("rank").iterrows():
        out["overlap"].append(key + [int(r["rank"]), num(r["comp_comm_overlap_pctg"])])
    kt, _ = ta.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
    for _, r in kt.sort_values("kernel_type").iterrows():
        out["kernel_types"].append(key + [r["kernel_type"], num(r["sum"]), num(r["percentage"])])
    idle, _ = ta.get_idle_time_breakdown(ranks=ranks, visualize=False)
    for _, r in idle.sort_values(["rank", "stream", "idle_category"]).iterrows():
        out["idle_time"].append(key + [int(r["rank"]), int(r["stream"]), r["idle_category"], num(r["idle_time"]),
                                 num(r["idle_time_ratio"])])
    ls = ta.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    for rank in ranks:
        df = ls[rank]
        n = len(df)
        row = key + [rank, n]
        for col in ("cpu_duration", "gpu_duration", "launch_delay"):
            row += [num(df[col].sum()), num(df[col].median()) if n else "", num(df[col].max()) if n else ""]
        row += [int((df["cpu_duration"] > RUNTIME_CUTOFF_US).sum()),
                int((df["launch_delay"] > LAUNCH_DELAY_CUTOFF_US).sum()),
                int(((df["cpu_duration"] <= RUNTIME_CUTOFF_US) & (df["gpu_duration"] < df["cpu_duration"])).sum())]
        out["launch_stats"].append(row)


HEADERS = {
    "temporal": "mode,run,rank,idle_us,compute_us,non_compute_us,kernel_time_us",
    "overlap": "mode,run,rank,comp_comm_overlap_pctg",
    "kernel_types": "mode,run,kernel_type,sum_us,percentage",
    "idle_time": "mode,run,rank,stream,idle_category,idle_time_us,idle_time_ratio",
    "launch_stats": "mode,run,rank,launches,cpu_duration_sum_us,cpu_duration_median_us,cpu_duration_max_us,"
                    "gpu_duration_sum_us,gpu_duration_median_us,gpu_duration_max_us,launch_delay_sum_us,"
                    "launch_delay_median_us,launch_delay_max_us,cpu_duration_over_50us,launch_delay_over_100us,"
                    "short_kernels",
}


def one_run(hta_src, run, path, tmp):
    """Runs HTA on one run in both modes (a process of its own): prints JSON {rows, note}."""
    sys.path.insert(0, hta_src)
    logging.disable(logging.WARNING)
    from hta.configs.env_options import HTAEnvOptions
    from hta.trace_analysis import TraceAnalysis
    # A directory of its own with just the traces (links), so other files are not read.
    d = os.path.join(tmp, run)
    os.mkdir(d)
    for f in trace_dir(path):
        os.symlink(os.path.abspath(os.path.join(path, f)), os.path.join(d, f))
    out = {k: [] for k in HEADERS}
    note = ""
    for mode in MODES:
        # the option in this process and in any process HTA starts to parse ranks
        os.environ["HTA_DISABLE_NS_ROUNDING"] = "1" if mode == "exact" else "0"
        HTAEnvOptions.instance().set_disable_ns_rounding(mode == "exact")
        try:
            analyze(TraceAnalysis(trace_dir=d), [mode, run], out)
        except Exception as e:  # HTA rejects the trace: say so, write no rows
            note += f" -- HTA ({mode}): {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    print(json.dumps({"rows": out, "note": note}))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if not sys.flags.optimize:
        os.execv(sys.executable, [sys.executable, "-O"] + sys.argv)
    if sys.argv[1] == "--one":
        one_run(*sys.argv[2:6])
        return
    jobs = 1
    if sys.argv[1].startswith("--jobs="):
        jobs = int(sys.argv.pop(1)[len("--jobs="):])
    hta_src = os.path.abspath(sys.argv[1])
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus/hta"
    out_dir = sys.argv[3] if len(sys.argv) > 3 else "tests/golden/hta"
    sys.path.insert(0, hta_src)
    import pandas
    try:
        commit = subprocess.run(["git", "-C", hta_src, "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get("HTA_COMMIT", "unknown")
    runs = list(H200)
    if os.path.isdir(corpus):
        runs += [(d.replace("/", "_"), os.path.join(corpus, d)) for d in CORPUS]
    out = {k: [] for k in HEADERS}
    source = []
    with tempfile.TemporaryDirectory() as tmp:
        pending = list(runs)
        procs = {}
        results = {}
        while pending or procs:
            while pending and len(procs) < jobs:
                run, path = pending.pop(0)
                procs[run] = subprocess.Popen([sys.executable, "-O", __file__, "--one", hta_src, run, path, tmp],
                                              stdout=subprocess.PIPE, text=True)
            run = next(iter(procs))
            stdout, _ = procs.pop(run).communicate()
            results[run] = json.loads(stdout)
            print(f"{run}: done{results[run]['note']}", file=sys.stderr)
    for run, path in runs:
        r = results[run]
        for k in HEADERS:
            out[k] += r["rows"][k]
        shown = path if path.startswith("experiments/") else "../shared/corpus/hta/" + os.path.relpath(path, corpus)
        source.append(f"- `{run}`: `{shown}`: " + ", ".join(f"`{f}` {sha256(os.path.join(path, f))[:16]}"
                                                          for f in trace_dir(path)) + r["note"])
    os.makedirs(out_dir, exist_ok=True)
    for name, header in HEADERS.items():
        buf = io.StringIO()
        buf.write(header + "\n")
        csv.writer(buf, lineterminator="\n").writerows(out[name])
        with open(os.path.join(out_dir, name + ".csv"), "w") as f:
            f.write(buf.getvalue())
    asserts = [f"- `{r[0]}` `{r[1]}` rank {r[2]}: non_compute_us {r[5]}" for r in out["temporal"]
               if r[5] and float(r[5]) < 0]
    with open(os.path.join(out_dir, "SOURCE.md"), "w") as f:
        f.write("# Goldens from the real Holistic Trace Analysis\n\n"
                "Written by `tools/hta_goldens.py` (see its header for what each CSV holds); do not edit.\n\n"
                f"- HTA commit: `{commit}` (github.com/facebookresearch/HolisticTraceAnalysis)\n"
                f"- Python {platform.python_version()}, pandas {pandas.__version__}\n\n"
                "Runs (trace files, first 16 hex digits of their SHA-256; a run HTA rejected says why):\n\n"
                + "\n".join(source) + "\n\n"
                "Rows where HTA's `assert non_compute_time >= 0` (get_temporal_breakdown) fails, so that "
                "HTA without -O stops there:\n\n" + ("\n".join(asserts) or "- none") + "\n")


if __name__ == "__main__":
    main()
