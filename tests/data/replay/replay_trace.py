"""replay_trace.py: the Kineto trace writer that the pipeline generators
beside it share (make_replay_layers.py, make_replay_pipe.py,
make_replay_p2p.py): one 1-GPU trace per stage, ranks 0 .. world - 1 of
one process group, every step the same relative to its start o. Each
generator works out its kernels' times; this writes them.

A rank is (host, kernels): host the operator before its launches, (name,
from, to) relative to o, or None; kernels in launch order, each (name,
launch, start, end, peer) relative to o, where name 'send' or 'recv' is a
point-to-point kernel to or from rank peer (peer None otherwise). Each
step k = 1 .. steps at o = (k - 1) x period, on host thread 1:
  ProfilerStep#k ('user_annotation') from o, period - 1 long;
  the host operator ('cpu_op'), if any;
  per kernel: a 10 us cudaLaunchKernel at o + launch, its correlation
    counting up over the trace, and the kernel on stream 7 of device r
    from o + start to o + end; a send's or recv's kernel is
    ncclDevKernel_SendRecv with its NCCL args (Collective name send or
    recv, Dst Rank of a send, Src Rank of a recv, every rank in group 0);
  cudaDeviceSynchronize from the last launch's return (launch + 10) to the
    last kernel's end + 10, correlation the last launch's + 1000;
  but in the last step, an 'aten::add' covering the host from there to
    the next step.
Usage from a generator in this folder (its folder is on sys.path):
    import replay_trace
    replay_trace.write(OUTDIR, RUN, period, steps, {r: (host, kernels)})
Python 3 standard library only.
"""
import json, os

SENDRECV = "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"


def trace(r, world, period, steps, host, kernels):
    """Rank r's trace (a dict for json.dump) of the given steps, as the docstring says."""
    ev, corr = [], 0
    for k in range(1, steps + 1):
        o = (k - 1) * period
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": period - 1})
        if host:
            name, h0, h1 = host
            ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": o + h0, "dur": h1 - h0})
        for kname, launch, start, end, peer in kernels:
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": o + launch, "dur": 10, "args": {"correlation": corr}})
            args = {"device": r, "stream": 7, "correlation": corr}
            if kname in ("send", "recv"):
                args.update({"Collective name": kname, "In msg nelems": 1024, "Out msg nelems": 1024,
                             "dtype": "BFloat16", "Group size": world, "Process Group Name": "0",
                             "Process Group Ranks": str(list(range(world)))})
                args["Dst Rank" if kname == "send" else "Src Rank"] = peer
                kname = SENDRECV
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": o + start,
                       "dur": end - start, "args": args})
        at = o + kernels[-1][1] + 10
        sync_end = o + kernels[-1][3] + 10
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                   "ts": at, "dur": sync_end - at, "args": {"correlation": corr + 1000}})
        if k < steps:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                       "ts": sync_end, "dur": o + period - sync_end})
    return {"distributedInfo": {"backend": "nccl", "rank": r, "world_size": world}, "traceEvents": ev}


def write(outdir, run, period, steps, ranks):
    """Writes OUTDIR/RUN/rank<r>.json for each rank r of RANKS, a dict r -> (host, kernels); world = len(RANKS)."""
    out = os.path.join(outdir, run)
    os.makedirs(out, exist_ok=True)
    for r, (host, kernels) in ranks.items():
        with open(os.path.join(out, f"rank{r}.json"), "w") as f:
            json.dump(trace(r, len(ranks), period, steps, host, kernels), f, indent=0)
