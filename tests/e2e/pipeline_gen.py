#!/usr/bin/env python3
"""pipeline_gen.py: synthetic Kineto traces of a pipeline-parallel run (t_pipeline.sh).

Usage: pipeline_gen.py OUTDIR SCHEDULE P M [--slow STAGE] [--perm R0,R1,...] [--steps N] [--world W]
                      [--args copied|real|coalesced] [--order time|gpu-first]

Writes OUTDIR/rank<r>.json, one per rank, of P stages running M micro-batches
per step under SCHEDULE (gpipe or 1f1b), with exact integer-us timings:
every stage takes t_f = 1000 us per micro-batch forward and t_b = 2000 us per
backward (the --slow stage twice that). Stage s runs on rank perm[s]
(default: rank s), of W ranks in all (default P: a larger W with a --perm
of other ranks writes a second pipeline of the same run into OUTDIR).
--args real writes the NCCL args the way PyTorch 2.11 does (its profiler's
saveNcclMeta, torch/csrc/profiler/util.cpp): the kernel carries only
External id, Collective name, In/Out msg nelems, Group size, In/Out split
size and Process Group Name/Description/Ranks; Rank, dtype, Seq and Dst
Rank / Src Rank are on the record_param_comms cpu_op alone, which has the
kernel's External id. --args copied (the default) copies them all onto the
kernel too. --args coalesced writes each send and recv the way PyTorch 2.11
runs torch.distributed.pipelining's batch_isend_irecv under NCCL 2.28
(experiments/h200x4-parallel/probe/): the record_param_comms cpu_op with
the c10d args but no Seq, then a user_annotation "nccl:coalesced" (its own
External id) around a cuda_driver cuLaunchKernelEx, and the kernel
ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>) with no
collective args and no External id, inside a gpu_user_annotation
"nccl:coalesced" with the host annotation's External id. Under 1f1b a send
followed by a recv from the same peer (a forward's send and the next
backward's recv, a backward's send and the next forward's recv) is one
batch, as Schedule1F1B fuses them: both ops, then one annotation and one
kernel from the send's start (not before the launch) to the recv's end.
--order gpu-first writes each trace's kernels before all its
other events (default time: every event sorted by ts, so a kernel's
record_param_comms comes before it).
Python 3 standard library only.

The timings come from a simulation of the schedule: each stage runs its
operations in the schedule's order, an operation starting when the stage is
free and its input is there (a forward when the previous stage's forward of
that micro-batch ended, a backward when the next stage's backward ended).
A transfer is taken as instantaneous on the compute timeline (the receiver's
compute may start when the sender's ends), so that the bubble of equal
stages is exactly the schedule's, (p - 1) / (m + p - 1); the SendRecv
kernels run on the NCCL stream beside it: a send for 10 us from the end of
its compute, a recv from its launch (or 10 us before) until the compute
that needs it starts, so that a receiver that waited for its input has
its recv start before the send and end as its compute starts.

What each trace holds, as PyTorch writes it (torch.distributed.pipelining
single-stage schedules, torch.optim, Kineto):
  ProfilerStep#N                user_annotation over the step's host work
  Optimizer.zero_grad#AdamW...  user_annotation at the step's start
  Forward {i}, Backward {i}     user_annotation around each micro-batch
  record_param_comms            cpu_op per send/recv with the c10d args
                                (Collective name, In/Out msg nelems, dtype,
                                Group size, Process Group Name/Ranks, Rank,
                                Seq, Dst Rank on a send / Src Rank on a recv)
  cudaLaunchKernel              cuda_runtime, correlation to its kernel
  ncclDevKernel_SendRecv(...)   kernel on the NCCL stream, with the
                                collective args copied (--args copied)
                                or some of them (--args real)
  compute kernels               two per micro-batch op (60 % and 40 %)
  Optimizer.step#AdamW.step     user_annotation after the last backward,
                                with two optimizer kernels (must be left out
                                of the pipeline's compute)
  cudaDeviceSynchronize         after the optimizer's launches, until its
                                last kernel ends (the step's end waits for
                                the GPU, as a loss.item() makes it)
"""
import json
import os
import sys

T_F, T_B = 1000, 2000
DELTA = 10          # SendRecv kernel, us
LEAD = 3000         # the host runs ahead: it launches a kernel up to this long before the kernel starts
NELEMS = 4 * 1024 * 512  # activations per micro-batch, BFloat16
COMPUTE_STREAM, NCCL_STREAM = 7, 20


def schedule_order(kind, p, m, s):
    """The operations of stage s in order: ('F', i) and ('B', i)."""
    if kind == "gpipe":
        return [("F", i) for i in range(m)] + [("B", i) for i in range(m)]
    warm = min(p - 1 - s, m)
    ops = [("F", i) for i in range(warm)]
    for i in range(m - warm):
        ops += [("F", warm + i), ("B", i)]
    ops += [("B", i) for i in range(m - warm, m)]
    return ops


def simulate(kind, p, m, tf, tb):
    """{(stage, op, i): (start, end)} in us from the step's start."""
    orders = [schedule_order(kind, p, m, s) for s in range(p)]
    at = [0] * p
    free = [0] * p
    done = {}
    progress = True
    while progress:
        progress = False
        for s in range(p):
            while at[s] < len(orders[s]):
                op, i = orders[s][at[s]]
                dep = (s - 1, "F", i) if op == "F" and s > 0 else (s + 1, "B", i) if op == "B" and s < p - 1 else None
                if dep is not None and dep not in done:
                    break
                start = max(free[s], done[dep][1] if dep else 0)
                end = start + (tf[s] if op == "F" else tb[s])
                done[(s, op, i)] = (start, end)
                free[s] = end
                at[s] += 1
                progress = True
    assert all(at[s] == len(orders[s]) for s in range(p)), "schedule deadlocked"
    return orders, done


def main():
    args = sys.argv[1:]
    out, kind, p, m = args[0], args[1], int(args[2]), int(args[3])
    slow, perm, nsteps, world, real, gpu_first = -1, list(range(p)), 3, p, False, False
    k = 4
    while k < len(args):
        if args[k] == "--slow":
            slow = int(args[k + 1])
        elif args[k] == "--perm":
            perm = [int(x) for x in args[k + 1].split(",")]
        elif args[k] == "--steps":
            nsteps = int(args[k + 1])
        elif args[k] == "--world":
            world = int(args[k + 1])
        elif args[k] == "--args":
            real = {"real": True, "copied": False, "coalesced": "coalesced"}[args[k + 1]]
        elif args[k] == "--order":
            gpu_first = {"gpu-first": True, "time": False}[args[k + 1]]
        k += 2
    tf = [T_F * (2 if s == slow else 1) for s in range(p)]
    tb = [T_B * (2 if s == slow else 1) for s in range(p)]
    orders, done = simulate(kind, p, m, tf, tb)
    span = max(e for _, e in done.values())
    period = span + 10000
    os.makedirs(out, exist_ok=True)
    events = {r: [] for r in perm}
    corr = {r: 1000 * (r + 1) for r in perm}
    seq = {r: 0 for r in perm}

    def X(r, cat, name, ts, dur, tid, args=None, pid=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid if pid is not None else 100 + r, "tid": tid,
             "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        events[r].append(e)

    for step in range(nsteps):
        base = 10000 + step * period  # GPU time of the step's start, us
        for s in range(p):
            r = perm[s]
            host = []  # (launch, gpu_start, gpu_end, name, stream, comm args or None, annotation)
            for op, i in orders[s]:
                st, en = done[(s, op, i)]
                st += base
                en += base
                dur = en - st
                src = s - 1 if op == "F" else s + 1
                dst = s + 1 if op == "F" else s - 1
                items = []
                if 0 <= src < p:
                    items.append(("recv", src, st))
                k1 = dur * 6 // 10
                items.append(("kern", "pp_%s_gemm_kernel" % ("fwd" if op == "F" else "bwd"), st, st + k1))
                items.append(("kern", "pp_%s_elementwise_kernel" % ("fwd" if op == "F" else "bwd"), st + k1, en))
                if 0 <= dst < p:
                    items.append(("send", dst, en))
                host.append(((op, i), items))
            last_end = max(done[(s, op, i)][1] for op, i in orders[s]) + base
            # host launch times, strictly increasing in program order
            launch = base - LEAD - 400
            step_start = launch - 100
            X(r, "user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", step_start + 10, 50, 1)
            pending = None  # a send held for a batch with the next recv (--args coalesced, 1F1B)
            for idx, ((op, i), items) in enumerate(host):
                first = None
                for it in items:
                    if it[0] == "kern":
                        want = it[2] - LEAD
                    elif it[0] == "recv":
                        want = done[(s, op, i)][0] + base - LEAD - 2
                    else:
                        want = launch + 2
                    launch = max(launch + 2, want)
                    c = corr[r] = corr[r] + 1
                    if first is None:
                        first = launch
                    if it[0] == "kern":
                        X(r, "cuda_runtime", "cudaLaunchKernel", launch, 1, 1, {"correlation": c})
                        X(r, "kernel", it[1], it[2], it[3] - it[2], COMPUTE_STREAM,
                          {"device": r, "stream": COMPUTE_STREAM, "correlation": c}, pid=r)
                        continue
                    seq[r] += 1
                    peer = perm[it[1]]
                    coll = {"Collective name": it[0], "In msg nelems": NELEMS, "Out msg nelems": NELEMS,
                            "dtype": "BFloat16", "Group size": p, "Process Group Name": "0",
                            "Process Group Ranks": "[" + ", ".join(str(x) for x in sorted(perm)) + "]",
                            "Rank": peer, "Seq": seq[r]}
                    coll["Dst Rank" if it[0] == "send" else "Src Rank"] = peer
                    t = it[2]
                    # a send runs [t, t + DELTA) after its compute; a recv from its launch until its
                    # compute may start, t, at least DELTA (it waited for its send where it began first)
                    kst = t if it[0] == "send" else min(launch + 1, t - DELTA)
                    kend = t + DELTA if it[0] == "send" else t
                    if real == "coalesced":
                        del coll["Seq"]
                        ann = 900000 + c
                        X(r, "cpu_op", "record_param_comms", launch - 1, 1, 1, dict(coll, **{"External id": c}))
                        nxt = host[idx + 1][1][0] if idx + 1 < len(host) else None
                        if kind == "1f1b" and it[0] == "send" and nxt and nxt[0] == "recv" and nxt[1] == it[1]:
                            pending = (kst, kend)  # Schedule1F1B: one batch with the next op's recv
                            continue
                        if pending:  # the batch of the held send and this recv: one kernel for both
                            kst = max(pending[0], launch + 1)
                            kend = max(kend, kst + DELTA)
                            pending = None
                        X(r, "user_annotation", "nccl:coalesced", launch, 1, 1, {"External id": ann})
                        e = {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 100 + r, "tid": 1,
                             "ts": launch, "dur": 1, "args": {"correlation": c}}
                        events[r].append(e)
                        X(r, "gpu_user_annotation", "nccl:coalesced", kst, kend - kst, NCCL_STREAM,
                          {"External id": ann}, pid=r)
                        X(r, "kernel", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", kst, kend - kst,
                          NCCL_STREAM, {"device": r, "stream": NCCL_STREAM, "correlation": c}, pid=r)
                        continue
                    X(r, "cpu_op", "record_param_comms", launch - 1, 3, 1, dict(coll, **{"External id": c}))
                    X(r, "cuda_runtime", "cudaLaunchKernel", launch, 1, 1, {"correlation": c})
                    if real:  # saveNcclMeta's kernel args: no Rank, dtype, Seq, Dst Rank, Src Rank
                        kargs = {"External id": c, "Collective name": it[0], "In msg nelems": NELEMS,
                                 "Out msg nelems": NELEMS, "Group size": p, "In split size": "[]",
                                 "Out split size": "[]", "Process Group Name": "0",
                                 "Process Group Description": "default_pg",
                                 "Process Group Ranks": coll["Process Group Ranks"]}
                    else:
                        kargs = dict(coll)
                    X(r, "kernel", "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", kst,
                      kend - kst, NCCL_STREAM, dict(kargs, device=r, stream=NCCL_STREAM, correlation=c), pid=r)
                X(r, "user_annotation", "%s %d" % ("Forward" if op == "F" else "Backward", i), first - 1,
                  launch - first + 3, 1)
            # the optimizer: after the last backward on the GPU, left out of the pipeline's compute
            launch = max(launch + 5, last_end - LEAD + 10)
            X(r, "user_annotation", "Optimizer.step#AdamW.step", launch - 2, 40, 1)
            g = last_end + 10
            for name in ("multi_tensor_apply_kernel<AdamW>", "multi_tensor_apply_kernel<AdamW>"):
                c = corr[r] = corr[r] + 1
                X(r, "cuda_runtime", "cudaLaunchKernel", launch, 1, 1, {"correlation": c})
                X(r, "kernel", name, g, 150, COMPUTE_STREAM, {"device": r, "stream": COMPUTE_STREAM,
                                                              "correlation": c}, pid=r)
                launch += 5
                g += 150
            # the step's end waits for the GPU (a loss.item()): the critical path starts on the GPU
            c = corr[r] = corr[r] + 1
            X(r, "cuda_runtime", "cudaDeviceSynchronize", launch, g + 2 - launch, 1, {"correlation": c})
            X(r, "user_annotation", "ProfilerStep#%d" % (step + 1), step_start, base + span + 1000 - step_start, 1)
    for r in perm:
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": world},
               "traceEvents": sorted(events[r], key=lambda e: (gpu_first and e["cat"] != "kernel", e["ts"], e["name"]))}
        with open(os.path.join(out, "rank%d.json" % r), "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
