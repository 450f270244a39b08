"""train_plant.py: train a small GPT-2 for a few steps under torch.profiler with
one planted cause on one rank, and write, per rank, the Kineto trace, the
allocator's own numbers per step and (rank 0) a Megatron-style log, plus
truth.json: what was planted, where, and how much.

Ours (perfstudy issues #39 and #41); derived from ../h100x4/train_trace.py.
Plants (--plant, on --plant-rank only):
  none      nothing
  uneven    the rank's batch holds --plant-size times the samples (1.5: 12 vs 8)
  pageable  the rank copies a pageable (unpinned) host buffer of --plant-size MiB
            to its GPU every step, inside get_train_batch
  sync      after the forward pass the rank reads --plant-size logits rows back
            with .item() (aten::_local_scalar_dense: a host synchronisation each)
  sleep     the rank sleeps --plant-size ms after optimizer_step, outside any
            annotation and operator (host time in Python)
  extra     the rank runs --plant-size extra bf16 8192^3 matrix products
            (aten::mm) inside forward, which no other rank runs
  leak      the rank keeps a --plant-size MiB tensor allocated in forward every
            step (a list that grows: memory growth)
Per rank and step, rank<N>.steps.csv holds the rank's own step time and
torch.cuda.max_memory_allocated / memory_allocated / max_memory_reserved
(peak statistics reset at the start of each step): the allocator's truth."""
import argparse, gzip, json, os, shutil, time
import torch
import torch.distributed as dist
from torch.profiler import profile, ProfilerActivity, schedule, record_function


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab, seed):
        self.n, self.seq, self.vocab, self.seed = n, seq, vocab, seed
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 1000003 + i)
        return torch.randint(0, self.vocab, (self.seq,), generator=g)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--strategy", choices=["single", "ddp", "fsdp"], default="ddp")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=50257)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--active", type=int, default=3)
    p.add_argument("--profile-memory", action="store_true")
    p.add_argument("--plant", choices=["none", "uneven", "pageable", "sync", "sleep", "extra", "leak"],
                   default="none")
    p.add_argument("--plant-rank", type=int, default=3)
    p.add_argument("--plant-size", type=float, default=0.0)
    p.add_argument("--out", required=True)
    a = p.parse_args()

    distributed = "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group("nccl")
        rank, world = dist.get_rank(), dist.get_world_size()
        local = int(os.environ["LOCAL_RANK"])
    else:
        rank, world, local = 0, 1, 0
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    torch.manual_seed(0)
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=a.layers, n_embd=a.hidden, n_head=a.heads,
                     n_positions=max(1024, a.seq), vocab_size=a.vocab)
    model = GPT2LMHeadModel(cfg).to(dev)
    nparams = sum(q.numel() for q in model.parameters())
    if a.strategy == "ddp":
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
    elif a.strategy == "fsdp":
        from torch.distributed.fsdp import fully_shard
        for b in model.transformer.h:
            fully_shard(b)
        fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    planted = a.plant != "none" and rank == a.plant_rank
    bs = a.batch
    if planted and a.plant == "uneven":
        bs = int(round(a.batch * a.plant_size))
    ds = Tokens(bs * (a.iters + 2), a.seq, a.vocab, seed=rank)
    dl = torch.utils.data.DataLoader(ds, batch_size=bs, num_workers=2, pin_memory=True, drop_last=True)
    if planted and a.plant == "pageable":
        host = torch.ones(int(a.plant_size * 2**20) // 4, dtype=torch.float32)  # not pinned
    if planted and a.plant == "extra":
        sx = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
        sw = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    kept = []
    os.makedirs(a.out, exist_ok=True)

    def on_ready(prof):
        path = os.path.join(a.out, f"rank{rank}.pt.trace.json")
        prof.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g)
        os.remove(path)

    wait, warmup = 2, 2
    sched = schedule(wait=wait, warmup=warmup, active=a.active, repeat=1)
    log = open(os.path.join(a.out, "rank0.log"), "w") if rank == 0 else None
    steps = open(os.path.join(a.out, f"rank{rank}.steps.csv"), "w")
    steps.write("step,profiled,step_ms,max_allocated_bytes,end_allocated_bytes,max_reserved_bytes\n")
    it = iter(dl)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                 record_shapes=True, profile_memory=a.profile_memory, on_trace_ready=on_ready) as prof:
        for step in range(1, a.iters + 1):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats(dev)
            t0 = time.perf_counter()
            with record_function("get_train_batch"):
                ids = next(it).to(dev, non_blocking=True)
                if planted and a.plant == "pageable":
                    extra_in = host.to(dev)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                with record_function("forward"):
                    if planted and a.plant == "extra":
                        for _ in range(int(a.plant_size)):
                            sx = torch.mm(sx, sw) * 1e-4
                    if planted and a.plant == "leak":
                        kept.append(torch.ones(int(a.plant_size * 2**20) // 2, dtype=torch.bfloat16, device=dev))
                    out = model(input_ids=ids, labels=ids)
                    loss = out.loss
                    if planted and a.plant == "sync":
                        tot = 0.0
                        for j in range(int(a.plant_size)):
                            tot += out.logits[0, j].float().max().item()
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer_step"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            if planted and a.plant == "sleep":
                time.sleep(a.plant_size / 1000)
            torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            prof.step()
            profiled = 1 if wait + warmup < step <= wait + warmup + a.active else 0
            steps.write(f"{step},{profiled},{dt*1000:.3f},{torch.cuda.max_memory_allocated(dev)},"
                        f"{torch.cuda.memory_allocated(dev)},{torch.cuda.max_memory_reserved(dev)}\n")
            if log:
                gbs = a.batch * world
                flops = 72 * gbs * a.seq * a.layers * a.hidden ** 2 * (1 + a.seq / (6 * a.hidden) + a.vocab / (12 * a.layers * a.hidden))
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
        json.dump({"plant": a.plant, "rank": a.plant_rank if a.plant != "none" else None, "size": a.plant_size,
                   "unit": {"uneven": "x samples", "pageable": "MiB per step", "sync": ".item() calls per step",
                            "sleep": "ms per step", "extra": "8192^3 bf16 products per step",
                            "leak": "MiB per step"}.get(a.plant, ""),
                   "strategy": a.strategy, "world": world, "batch": a.batch, "seq": a.seq, "layers": a.layers,
                   "profiled_iterations": [wait + warmup + 1, wait + warmup + a.active],
                   "profile_memory": a.profile_memory},
                  open(os.path.join(a.out, "truth.json"), "w"), indent=1)
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
