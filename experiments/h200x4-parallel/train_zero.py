"""train_zero.py: GPT-style models of several sizes trained for a few steps on 1, 2
or 4 GPUs with DDP, ZeRO-1 (ZeroRedundancyOptimizer), ZeRO-2 (FSDP2 with
reshard_after_forward=False: gradients and optimizer states sharded, parameters
kept gathered) or ZeRO-3 (FSDP2: parameters sharded too). The last
iteration (20 of 20; the one before is the profiler's warm-up) is profiled
on every rank, without shapes and with the allocator's events: paper 002's
Figs 12-14 split each iteration into compute and communication, memory per
GPU comes from the allocator, and one step a rank keeps the traces small.
The profiled window comes last because a host-bound run's iterations after
it ran some 20 % slower than those before it in the same process
(probe/profiler_wrap.py), so that only clean iterations come before it.
Ours (perfstudy issue #42).

One launch trains every (size, strategy) of --sizes x --strategies in turn,
each a run of its own: a fresh model built on the GPU, its optimizer, then
everything freed (torch.cuda.empty_cache) before the next, so that one
process start and one NCCL set-up serve them all (device time is scarce).
Per run, in OUT/<size>-<world>gpu-<strategy> (OUT/<size>-1gpu for single):
rank0.log (Megatron format, one line per iteration), rank<N>.steps.csv per
rank (its own step time and torch.cuda.max_memory_allocated /
memory_allocated / max_memory_reserved, the peaks reset at each step's
start), rank<N>.pt.trace.json.gz (the profiled iteration) and truth.json
(the configuration).

--device cpu (gloo, the size "tiny") exists only to check this script
without GPUs."""
import argparse, gc, gzip, json, os, shutil, time
import torch
import torch.distributed as dist
from torch.profiler import profile, ProfilerActivity, schedule

SIZES = {  # GPT-3 paper's shapes: layers, hidden, heads; tiny: for --device cpu
    "125m": (12, 768, 12), "350m": (24, 1024, 16), "1.3b": (24, 2048, 16), "2.7b": (32, 2560, 32),
    "tiny": (2, 128, 4)}


def train(a, size, strategy, rank, world, local, dev):
    from transformers import GPT2Config, GPT2LMHeadModel
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    name = f"{size}-1gpu" if strategy == "single" else f"{size}-{world}gpu-{strategy}"
    out = os.path.join(a.out, name)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    L, H, NH = SIZES[size]
    cfg = GPT2Config(n_layer=L, n_embd=H, n_head=NH, n_positions=max(1024, a.seq), vocab_size=50257)
    with dev:
        model = GPT2LMHeadModel(cfg)
    nparams = sum(q.numel() for q in model.parameters())
    if strategy in ("ddp", "zero1"):
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local] if cuda else None)
    elif strategy in ("zero2", "zero3"):
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard
        mesh = init_device_mesh(dev.type, (world,))  # its own, or a CPU check would pick the GPU
        for b in model.transformer.h:
            fully_shard(b, mesh=mesh, reshard_after_forward=strategy == "zero3")
        fully_shard(model, mesh=mesh, reshard_after_forward=strategy == "zero3")
    if strategy == "zero1":
        from torch.distributed.optim import ZeroRedundancyOptimizer
        opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    g = torch.Generator(device=dev).manual_seed(rank)
    log = open(os.path.join(out, "rank0.log"), "w") if rank == 0 else None
    steps = open(os.path.join(out, f"rank{rank}.steps.csv"), "w")
    steps.write("step,profiled,step_ms,max_allocated_bytes,end_allocated_bytes,max_reserved_bytes\n")

    def on_ready(prof):
        path = os.path.join(out, f"rank{rank}.pt.trace.json")
        prof.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as z:
            shutil.copyfileobj(f, z)
        os.remove(path)

    # one profiled iteration (--profile-step, the last by default; 0: none),
    # no shapes: the traces give the step's compute and communication, and
    # (profile_memory) the allocator's events: memory per GPU measured by
    # perfstudy (memory_steps.csv), which steps.csv's max_allocated_bytes
    # of the same iteration checks
    prof = None
    if a.profile_step > 0:
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        prof = profile(activities=acts, schedule=schedule(wait=a.profile_step - 2, warmup=1, active=1, repeat=1),
                       profile_memory=True, on_trace_ready=on_ready)
        prof.start()
    for step in range(1, a.iters + 1):
        ids = torch.randint(0, 50257, (a.batch, a.seq), device=dev, generator=g)
        sync()
        if cuda:
            torch.cuda.reset_peak_memory_stats(dev)
        t0 = time.perf_counter()
        with torch.autocast(dev.type, dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        sync()
        dt = time.perf_counter() - t0
        mem = (torch.cuda.max_memory_allocated(dev), torch.cuda.memory_allocated(dev),
               torch.cuda.max_memory_reserved(dev)) if cuda else (0, 0, 0)
        if prof:
            prof.step()
        steps.write(f"{step},{1 if step == a.profile_step else 0},{dt*1000:.3f},{mem[0]},{mem[1]},{mem[2]}\n")
        if log:
            gbs = a.batch * world
            flops = 72 * gbs * a.seq * L * H ** 2 * (1 + a.seq / (6 * H) + 50257 / (12 * L * H))
            log.write(f" iteration {step:8d}/{a.iters:8d} | consumed samples: {step*gbs:12d} | "
                      f"elapsed time per iteration (ms): {dt*1000:.1f} | "
                      f"throughput per GPU (TFLOP/s/GPU): {flops/dt/world/1e12:.1f} | "
                      f"learning rate: 1.000000E-04 | global batch size: {gbs:5d} | "
                      f"lm loss: {loss.item():.6E} | loss scale: 1.0 | "
                      f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
    if prof:
        prof.stop()
    steps.close()
    if log:
        log.write(f"params {nparams} world {world} strategy {strategy}\n")
        log.close()
        json.dump({"size": size, "layers": L, "hidden": H, "heads": NH, "params": nparams, "strategy": strategy,
                   "world": world, "batch_per_gpu": a.batch, "seq": a.seq, "iterations": a.iters,
                   "profiled_iteration": a.profile_step or None, "runs_before_in_this_process": a.done},
                  open(os.path.join(out, "truth.json"), "w"), indent=1)
    print(f"rank {rank}: {name} done", flush=True)
    # free everything before the next run: its memory peaks must be its own
    del model, opt, loss, ids, g, prof
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    if world > 1:
        dist.barrier()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="125m,350m,1.3b,2.7b")
    p.add_argument("--strategies", default="ddp,zero1,zero2,zero3", help="single on one GPU")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--profile-step", type=int, default=-1,
                   help="the one profiled iteration (default: the last; 0: none)")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--out", required=True, help="parent folder: one folder per run in it")
    a = p.parse_args()
    sizes, strategies = a.sizes.split(","), a.strategies.split(",")
    if a.profile_step < 0:
        a.profile_step = a.iters
    if a.profile_step and not 2 <= a.profile_step <= a.iters:
        p.error("--profile-step: 0, or from 2 to --iters")
    for s in sizes:
        if s not in SIZES:
            p.error(f"--sizes: unknown size {s}")
    distributed = "WORLD_SIZE" in os.environ
    cuda = a.device == "cuda"
    if distributed:
        dist.init_process_group("nccl" if cuda else "gloo")
        rank, world, local = dist.get_rank(), dist.get_world_size(), int(os.environ["LOCAL_RANK"])
    else:
        rank, world, local = 0, 1, 0
    for s in strategies:
        if s not in ("single", "ddp", "zero1", "zero2", "zero3") or (s == "single") != (world == 1):
            p.error(f"--strategies: {s} on {world} GPU(s)")
    if cuda:
        torch.cuda.set_device(local)
    dev = torch.device("cuda", local) if cuda else torch.device("cpu")
    a.done = 0
    for size in sizes:
        for strategy in strategies:
            train(a, size, strategy, rank, world, local, dev)
            a.done += 1
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
