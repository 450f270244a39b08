"""train_zero.py: GPT-style models of several sizes trained for a few steps on 1, 2
or 4 GPUs with DDP, ZeRO-1 (ZeroRedundancyOptimizer), ZeRO-2 (FSDP2 with
reshard_after_forward=False: gradients and optimizer states sharded, parameters
kept gathered) or ZeRO-3 (FSDP2: parameters sharded too), without the profiler.
Ours (perfstudy issue #42: paper 002's Figs 12-14). Writes rank0.log (Megatron
format, one line per iteration) and rank<N>.steps.csv per rank: its own step
time and torch.cuda.max_memory_allocated / memory_allocated / max_memory_reserved
(peaks reset at each step's start), and truth.json (the configuration)."""
import argparse, json, os, time
import torch
import torch.distributed as dist

SIZES = {  # GPT-3 paper's shapes: layers, hidden, heads
    "125m": (12, 768, 12), "350m": (24, 1024, 16), "1.3b": (24, 2048, 16), "2.7b": (32, 2560, 32)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", choices=sorted(SIZES), required=True)
    p.add_argument("--strategy", choices=["single", "ddp", "zero1", "zero2", "zero3"], required=True)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    distributed = "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group("nccl")
        rank, world, local = dist.get_rank(), dist.get_world_size(), int(os.environ["LOCAL_RANK"])
    else:
        rank, world, local = 0, 1, 0
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    torch.manual_seed(0)
    from transformers import GPT2Config, GPT2LMHeadModel
    L, H, NH = SIZES[a.size]
    cfg = GPT2Config(n_layer=L, n_embd=H, n_head=NH, n_positions=max(1024, a.seq), vocab_size=50257)
    model = GPT2LMHeadModel(cfg).to(dev)
    nparams = sum(q.numel() for q in model.parameters())
    if a.strategy in ("ddp", "zero1"):
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
    elif a.strategy in ("zero2", "zero3"):
        from torch.distributed.fsdp import fully_shard
        for b in model.transformer.h:
            fully_shard(b, reshard_after_forward=a.strategy == "zero3")
        fully_shard(model, reshard_after_forward=a.strategy == "zero3")
    if a.strategy == "zero1":
        from torch.distributed.optim import ZeroRedundancyOptimizer
        opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    os.makedirs(a.out, exist_ok=True)
    g = torch.Generator(device=dev).manual_seed(rank)
    log = open(os.path.join(a.out, "rank0.log"), "w") if rank == 0 else None
    steps = open(os.path.join(a.out, f"rank{rank}.steps.csv"), "w")
    steps.write("step,step_ms,max_allocated_bytes,end_allocated_bytes,max_reserved_bytes\n")
    for step in range(1, a.iters + 1):
        ids = torch.randint(0, 50257, (a.batch, a.seq), device=dev, generator=g)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats(dev)
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        steps.write(f"{step},{dt*1000:.3f},{torch.cuda.max_memory_allocated(dev)},"
                    f"{torch.cuda.memory_allocated(dev)},{torch.cuda.max_memory_reserved(dev)}\n")
        if log:
            gbs = a.batch * world
            flops = 72 * gbs * a.seq * L * H ** 2 * (1 + a.seq / (6 * H) + 50257 / (12 * L * H))
            log.write(f" iteration {step:8d}/{a.iters:8d} | consumed samples: {step*gbs:12d} | "
                      f"elapsed time per iteration (ms): {dt*1000:.1f} | "
                      f"throughput per GPU (TFLOP/s/GPU): {flops/dt/world/1e12:.1f} | "
                      f"learning rate: 1.000000E-04 | global batch size: {gbs:5d} | "
                      f"lm loss: {loss.item():.6E} | loss scale: 1.0 | "
                      f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
    steps.close()
    if log:
        log.write(f"params {nparams} world {world} strategy {a.strategy}\n")
        log.close()
        json.dump({"size": a.size, "layers": L, "hidden": H, "heads": NH, "params": nparams, "strategy": a.strategy,
                   "world": world, "batch_per_gpu": a.batch, "seq": a.seq, "iterations": a.iters},
                  open(os.path.join(a.out, "truth.json"), "w"), indent=1)
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
