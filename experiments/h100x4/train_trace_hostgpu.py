"""Train a small transformer for a few steps under torch.profiler and write
Kineto (Chrome-trace JSON) traces, one per rank, plus a Megatron-style log.
Strategies: single (1 GPU), ddp, zero1 (DDP + ZeroRedundancyOptimizer), fsdp (FSDP2)."""
import argparse, gzip, os, shutil, time
import torch
import torch.distributed as dist
from torch.profiler import profile, ProfilerActivity, schedule, record_function


def build(a):
    from transformers import GPT2Config, GPT2LMHeadModel, BertConfig, BertForMaskedLM
    if a.model == "gpt2":
        cfg = GPT2Config(n_layer=a.layers, n_embd=a.hidden, n_head=a.heads,
                         n_positions=max(1024, a.seq), vocab_size=a.vocab)
        m = GPT2LMHeadModel(cfg)
        blocks = m.transformer.h
    else:
        cfg = BertConfig(num_hidden_layers=a.layers, hidden_size=a.hidden,
                         num_attention_heads=a.heads, intermediate_size=4 * a.hidden,
                         max_position_embeddings=max(512, a.seq), vocab_size=a.vocab)
        m = BertForMaskedLM(cfg)
        blocks = m.bert.encoder.layer
    return m, blocks


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab):
        self.n, self.seq, self.vocab = n, seq, vocab
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randint(0, self.vocab, (self.seq,), generator=g)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", choices=["gpt2", "bert"], required=True)
    p.add_argument("--strategy", choices=["single", "ddp", "zero1", "fsdp"], default="single")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=50257)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", required=True)
    p.add_argument("--active", type=int, default=3)
    p.add_argument("--stack", action="store_true")
    p.add_argument("--straggle-rank", type=int, default=-1)
    p.add_argument("--straggle-ms", type=float, default=0.0)
    p.add_argument("--straggle-kind", choices=["host", "gpu"], default="host")
    # ours (issue #28): extra GPU work on the straggling rank besides --straggle-kind host
    p.add_argument("--straggle-gpu-ms", type=float, default=0.0)
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
    model, blocks = build(a)
    model.to(dev)
    nparams = sum(p.numel() for p in model.parameters())

    if a.strategy in ("ddp", "zero1"):
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
    elif a.strategy == "fsdp":
        from torch.distributed.fsdp import fully_shard
        for b in blocks:
            fully_shard(b)
        fully_shard(model)

    if a.strategy == "zero1":
        from torch.distributed.optim import ZeroRedundancyOptimizer
        opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    ds = Tokens(a.batch * world * (a.iters + 2), a.seq, a.vocab)
    sampler = torch.utils.data.distributed.DistributedSampler(ds) if distributed else None
    dl = torch.utils.data.DataLoader(ds, batch_size=a.batch, sampler=sampler,
                                     num_workers=a.workers, pin_memory=True, drop_last=True)
    os.makedirs(a.out, exist_ok=True)

    def on_ready(prof):
        path = os.path.join(a.out, f"rank{rank}.pt.trace.json")
        prof.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g)
        os.remove(path)

    sched = schedule(wait=2, warmup=2, active=a.active, repeat=1)
    log = open(os.path.join(a.out, f"rank{rank}.log"), "w") if rank == 0 else None
    it = iter(dl)
    slow = a.straggle_rank in (rank, -2) and a.straggle_ms > 0  # -2: every rank
    gpu_ms = a.straggle_ms if a.straggle_kind == "gpu" else a.straggle_gpu_ms
    gpu_slow = a.straggle_rank in (rank, -2) and gpu_ms > 0
    if gpu_slow:
        # extra bf16 matrix products on this rank only: about 1.4 ms each on an H100
        sx = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
        sw = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
        nmm = max(1, int(gpu_ms / 1.4))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                 record_shapes=True, with_stack=a.stack, profile_memory=a.stack,
                 on_trace_ready=on_ready) as prof:
        for step in range(1, a.iters + 1):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with record_function("get_train_batch"):
                ids = next(it).to(dev, non_blocking=True)
                if slow and a.straggle_kind == "host":
                    time.sleep(a.straggle_ms / 1000)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                with record_function("forward"):
                    if gpu_slow:
                        for _ in range(nmm):
                            sx = torch.mm(sx, sw) * 1e-4
                    out = model(input_ids=ids, labels=ids)
                    loss = out.loss
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer_step"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            prof.step()
            if log:
                gbs = a.batch * world
                flops = 72 * gbs * a.seq * a.layers * a.hidden ** 2 * (1 + a.seq / (6 * a.hidden) + a.vocab / (12 * a.layers * a.hidden))
                log.write(f" iteration {step:8d}/{a.iters:8d} | consumed samples: {step*gbs:12d} | "
                          f"elapsed time per iteration (ms): {dt*1000:.1f} | "
                          f"throughput per GPU (TFLOP/s/GPU): {flops/dt/world/1e12:.1f} | "
                          f"learning rate: 1.000000E-04 | global batch size: {gbs:5d} | "
                          f"lm loss: {loss.item():.6E} | loss scale: 1.0 | "
                          f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
    if log:
        log.write(f"params {nparams} world {world} strategy {a.strategy}\n")
        log.close()
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
