"""train_par.py: a GPT-style decoder trained for a few steps with pipeline
parallelism (torch.distributed.pipelining, ScheduleGPipe or Schedule1F1B, one
stage per rank) or tensor parallelism (torch.distributed.tensor.parallel,
Megatron's column/row split of attention and MLP), under torch.profiler, and
per rank the Kineto trace, its own step times and (rank 0) a Megatron-style
log; truth.json says the configuration and what was planted.

Ours (perfstudy issue #42: paper 002's (TP, PP) figure, 004's tables of the
kind, and the pipeline bubble against the schedule's (p-1)/(m+p-1)).

  --mode pp   p = WORLD_SIZE stages, the blocks split evenly; stage 0 holds
              the embedding, the last stage the final norm, head and loss.
              --runs SCHEDULE:M[:slowS:K],...: one run each, in turn, with
              ScheduleGPipe (gpipe) or Schedule1F1B (1f1b) and M micro-
              batches (batch / M each); slowS:K plants a slow stage: stage
              S runs K extra bf16 4096^3 products per micro-batch forward
              (imbalance the schedule's formula does not know).
  --mode tp   t = WORLD_SIZE: the fused qkv projection (Megatron's head by
              head layout) and fc1 column-parallel, the attention output
              and fc2 row-parallel: two all-reduces of b*s*h per block in
              the forward (o, fc2), two in the backward (the gradients of
              qkv's and fc1's inputs); embedding and head replicated. t = 1
              is the same model unsplit. (With q, k and v as three column-
              parallel layers the backward had four: seen on the CPU.)
One launch serves all its runs (one process start, one NCCL set-up: device
time is scarce); each run has its own model, optimizer and profiler, and
everything is freed before the next. Run folders: OUT/pp<p>-<schedule>-m<M>
[-slow<S>]<suffix>, OUT/tp<t><suffix>.
--device cpu (gloo) exists only to check this script without GPUs."""
import argparse, gc, gzip, json, os, shutil, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
from torch.profiler import profile, ProfilerActivity, schedule, record_function


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        # q, k and v fused in one projection whose 3h outputs run head by
        # head (q, k, v of head 0, then of head 1, ...), Megatron's layout:
        # split by columns across tensor-parallel ranks, each gets whole
        # heads, and the backward all-reduces the input's gradient once
        self.qkv = nn.Linear(h, 3 * h)
        self.o = nn.Linear(h, h)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)
        self.hd = h // heads

    def forward(self, x):
        b, s, _ = x.shape
        y = self.ln1(x)
        # -1: the heads this rank holds (all of them unless tensor parallel)
        q, k, v = (t.transpose(1, 2) for t in self.qkv(y).view(b, s, -1, 3, self.hd).unbind(3))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, -1))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Stage(nn.Module):
    """Blocks [lo, hi) of the model; the first stage embeds, the last one
    normalises and projects to the vocabulary (logits in fp32)."""
    def __init__(self, a, lo, hi, first, last, slow):
        super().__init__()
        self.first, self.last, self.slow = first, last, slow
        if first:
            self.emb, self.pos = nn.Embedding(a.vocab, a.hidden), nn.Embedding(a.seq, a.hidden)
        self.blocks = nn.ModuleList(Block(a.hidden, a.heads) for _ in range(lo, hi))
        if last:
            self.lnf, self.head = nn.LayerNorm(a.hidden), nn.Linear(a.hidden, a.vocab, bias=False)
        self.sx = None

    def forward(self, x):
        with torch.autocast(x.device.type, dtype=torch.bfloat16):
            if self.first:
                x = self.emb(x) + self.pos(torch.arange(x.shape[1], device=x.device))
            for b in self.blocks:
                x = b(x)
            if self.slow:
                if self.sx is None:
                    self.sx = torch.randn(4096, 4096, device=x.device, dtype=torch.bfloat16)
                for _ in range(self.slow):
                    self.sx = torch.mm(self.sx, self.sx) * 1e-4
            if self.last:
                return self.head(self.lnf(x)).float()
            return x.float()


def parse_runs(p, a):
    """The pp runs of --runs: (schedule, microbatches, slow stage, extra products)."""
    runs = []
    for spec in a.runs.split(","):
        f = spec.split(":")
        try:
            sch, m = f[0], int(f[1])
            slow, k = (int(f[2][4:]), int(f[3])) if len(f) == 4 and f[2].startswith("slow") else (-1, 0)
        except (IndexError, ValueError):
            p.error(f"--runs: {spec}: want SCHEDULE:M or SCHEDULE:M:slowS:K")
        if sch not in ("gpipe", "1f1b") or len(f) not in (2, 4) or m < 1 or (len(f) == 4 and slow < 0):
            p.error(f"--runs: {spec}: want SCHEDULE:M or SCHEDULE:M:slowS:K")
        runs.append((sch, m, slow, k))
    return runs


def run_one(a, run, rank, world, local, dev):
    """One run: a fresh model, its optimizer and its profiler; per rank its
    trace, its step times and (the logging rank) the log and truth.json."""
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    sched_name, micro, slow_stage, slow_k = run if a.mode == "pp" else (None, None, -1, 0)
    if a.mode == "pp":
        name = f"pp{world}-{sched_name}-m{micro}" + (f"-slow{slow_stage}" if slow_stage >= 0 else "") + a.suffix
    else:
        name = f"tp{world}{a.suffix}"
    out = os.path.join(a.out, name)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)

    if a.mode == "pp":
        from torch.distributed.pipelining import PipelineStage, ScheduleGPipe, Schedule1F1B
        per = a.layers // world
        lo, hi = rank * per, (rank + 1) * per if rank < world - 1 else a.layers
        slow = slow_k if rank == slow_stage else 0
        mod = Stage(a, lo, hi, rank == 0, rank == world - 1, slow).to(dev)
        stage = PipelineStage(mod, rank, world, dev)

        def loss_fn(logits, target):
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), target.view(-1))
        cls = ScheduleGPipe if sched_name == "gpipe" else Schedule1F1B
        sch = cls(stage, n_microbatches=micro, loss_fn=loss_fn)
        model = mod
    else:
        mod = Stage(a, 0, a.layers, True, True, 0).to(dev)
        if world > 1:
            from torch.distributed.device_mesh import init_device_mesh
            from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
            mesh = init_device_mesh(dev.type, (world,))
            for b in mod.blocks:
                parallelize_module(b, mesh, {"qkv": ColwiseParallel(), "o": RowwiseParallel(),
                                             "fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
        model = mod
    nparams = sum(q.numel() for q in model.parameters())
    # foreach=False under TP: the fused multi-tensor step refuses a mix of
    # plain tensors (norms, embedding, head) and DTensors (the split layers)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False if a.mode == "tp" and world > 1 else None)

    def on_ready(prof):
        path = os.path.join(out, f"rank{rank}.pt.trace.json")
        prof.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g)
        os.remove(path)

    # The profiled window is the run's last iterations (one warm-up, then
    # --active recorded): a host-bound run's iterations after the window ran
    # some 20 % slower than before it in one process (probe/profiler_wrap.py),
    # so that only clean iterations come before it.
    warmup = 1
    wait = a.iters - a.active - warmup
    sched = schedule(wait=wait, warmup=warmup, active=a.active, repeat=1)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    # The log is the rank that has the loss: the last stage (pp), rank 0 (tp).
    logger = world - 1 if a.mode == "pp" else 0
    log = open(os.path.join(out, f"rank{rank}.log"), "w") if rank == logger else None
    steps = open(os.path.join(out, f"rank{rank}.steps.csv"), "w")
    steps.write("step,profiled,step_ms,max_allocated_bytes\n")
    g = torch.Generator().manual_seed(1234)  # the same data on every rank
    with profile(activities=acts, schedule=sched, record_shapes=True, on_trace_ready=on_ready) as prof:
        for step in range(1, a.iters + 1):
            sync()
            if cuda:
                torch.cuda.reset_peak_memory_stats(dev)
            t0 = time.perf_counter()
            with record_function("get_train_batch"):
                ids = torch.randint(0, a.vocab, (a.batch, a.seq), generator=g).to(dev)
                tgt = torch.roll(ids, -1, 1)
            loss = None
            if a.mode == "pp":
                if rank == 0:
                    sch.step(ids)
                elif rank == world - 1:
                    losses = []
                    sch.step(target=tgt, losses=losses)
                    loss = torch.stack(losses).mean()
                else:
                    sch.step()
            else:
                with record_function("forward"):
                    logits = model(ids)
                    loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), tgt.view(-1))
                with record_function("backward"):
                    loss.backward()
            with record_function("optimizer_step"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            sync()
            dt = time.perf_counter() - t0
            prof.step()
            profiled = 1 if wait + warmup < step <= wait + warmup + a.active else 0
            mem = torch.cuda.max_memory_allocated(dev) if cuda else 0
            steps.write(f"{step},{profiled},{dt*1000:.3f},{mem}\n")
            if log:
                gbs = a.batch
                flops = 72 * gbs * a.seq * a.layers * a.hidden ** 2 * (1 + a.seq / (6 * a.hidden) + a.vocab / (12 * a.layers * a.hidden))
                log.write(f" iteration {step:8d}/{a.iters:8d} | consumed samples: {step*gbs:12d} | "
                          f"elapsed time per iteration (ms): {dt*1000:.1f} | "
                          f"throughput per GPU (TFLOP/s/GPU): {flops/dt/world/1e12:.1f} | "
                          f"learning rate: 1.000000E-04 | global batch size: {gbs:5d} | "
                          f"lm loss: {float(loss.item()):.6E} | loss scale: 1.0 | "
                          f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
                log.flush()
    steps.close()
    if log:
        log.write(f"params {nparams} world {world} mode {a.mode}\n")
        log.close()
        p_ = world
        json.dump({"mode": a.mode, "world": world, "schedule": sched_name,
                   "stages": p_ if a.mode == "pp" else 1, "tensor_parallel": world if a.mode == "tp" else 1,
                   "microbatches": micro,
                   "formula_bubble_share": (p_ - 1) / (micro + p_ - 1) if a.mode == "pp" else None,
                   "plant": {"slow_stage": slow_stage, "extra_products_per_microbatch": slow_k,
                             "product": "bf16 4096^3"} if slow_stage >= 0 else None,
                   "nccl_p2p_disable": os.environ.get("NCCL_P2P_DISABLE"),
                   "batch": a.batch, "seq": a.seq, "layers": a.layers, "hidden": a.hidden, "heads": a.heads,
                   "vocab": a.vocab, "params_log_rank": nparams,
                   "log_rank": logger,
                   "tp_allreduce_nelems": a.batch * a.seq * a.hidden if a.mode == "tp" and world > 1 else None,
                   "tp_allreduces_per_block_forward": 2 if a.mode == "tp" and world > 1 else None,
                   "tp_allreduces_per_block_backward": 2 if a.mode == "tp" and world > 1 else None,
                   "pp_activation_nelems_per_microbatch": (a.batch // micro) * a.seq * a.hidden if a.mode == "pp" else None,
                   "profiled_iterations": [wait + warmup + 1, wait + warmup + a.active],
                   "runs_before_in_this_process": a.done},
                  open(os.path.join(out, "truth.json"), "w"), indent=1)
    print(f"rank {rank}: {name} done", flush=True)
    # free everything before the next run: its memory peaks must be its own
    del model, mod, opt, prof
    if a.mode == "pp":
        del sch, stage
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    if world > 1:
        dist.barrier()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["pp", "tp"], required=True)
    p.add_argument("--runs", default="gpipe:8", help="pp: SCHEDULE:M[:slowS:K],...")
    p.add_argument("--suffix", default="", help="appended to every run folder's name")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--vocab", type=int, default=50257)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--active", type=int, default=3)
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--out", required=True, help="parent folder: one folder per run in it")
    a = p.parse_args()
    if not 1 <= a.active <= a.iters - 3:
        p.error("--active: from 1 to --iters - 3")
    runs = parse_runs(p, a) if a.mode == "pp" else [None]

    distributed = "WORLD_SIZE" in os.environ
    cuda = a.device == "cuda"
    if distributed:
        dist.init_process_group("nccl" if cuda else "gloo")
        rank, world, local = dist.get_rank(), dist.get_world_size(), int(os.environ["LOCAL_RANK"])
    else:
        rank, world, local = 0, 1, 0
    if cuda:
        torch.cuda.set_device(local)
    dev = torch.device("cuda", local) if cuda else torch.device("cpu")
    a.done = 0
    for run in runs:
        run_one(a, run, rank, world, local, dev)
        a.done += 1
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
