"""train_async.py: train a small GPT-2 on ONE GPU for a few steps under
torch.profiler, with an asynchronous training loop (no synchronisation around
steps, no per-step .item(): the host runs ahead of the GPU as real training
does) and one planted cause, and write the Kineto trace, a Megatron-style log
whose step times come from CUDA events, the allocator's numbers per step and
truth.json: what was planted, where, and how much.

Ours (perfstudy issue #52); derived from ../h200x4/train_plant.py.
Plants (--plant, --plant-size):
  none        nothing
  sleep       the host sleeps SIZE ms after optimizer_step, outside every
              annotation and operator (time.sleep)
  item        after optimizer_step: one loss.item() (a blocking device-to-host
              copy: the host waits for the GPU) and then SIZE ms of host busy
              work (a Python loop, not a sleep), outside every annotation
  pageable    a SIZE MiB pageable (unpinned) host tensor is copied to the GPU
              every step inside get_train_batch
  syncblocks  torch.cuda.synchronize() after every transformer block, in the
              forward pass (module forward hook) and the backward pass (hook
              on the gradient of the block's input: runs once the block's
              backward is done, on the autograd engine's thread)
  extra       SIZE extra bf16 8192^3 matrix products (aten::mm) in forward
  leak        keeps a SIZE MiB tensor allocated in forward every step (a list
              that grows); run it with --profile-memory
Step times without synchronising: a CUDA event is recorded on the current
stream at each iteration boundary (before the first iteration, then at the
end of each iteration just before prof.step(), so that the trace export that
prof.step() runs after the last profiled iteration falls into the next
iteration, as with synchronised loops) and, after the loop, one
synchronisation; iteration i's time is event[i-1] -> event[i], the GPU-side
step period, which in steady state is the training's step time whether the
step is host- or GPU-bound. The host's perf_counter is read at the same
places (host_ms). Losses are kept as detached tensors and read after the loop.
Per iteration, rank0.steps.csv holds both times and
torch.cuda.max_memory_allocated / memory_allocated / max_memory_reserved
(peaks reset at each iteration's start; reading them is no synchronisation).
--probe N (after the logged loop, written to probe.json, not to the log):
N iterations each followed by a synchronisation, timing the host's own time to
enqueue one step (from an idle GPU, so the launch queue never blocks it) and
the synchronised step: the GPU-bound slack is their difference. The first
probe iteration runs under torch.cuda.set_sync_debug_mode("warn"), which warns
on stderr of every synchronising operation in the step."""
import argparse, gzip, json, os, shutil, statistics, time
import torch
from torch.profiler import profile, ProfilerActivity, schedule, record_function

PLANTS = ["none", "sleep", "item", "pageable", "syncblocks", "extra", "leak"]
UNITS = {"sleep": "ms of host sleep per step", "item": "ms of host busy work after one loss.item() per step",
         "pageable": "MiB per step", "syncblocks": "", "extra": "8192^3 bf16 products per step",
         "leak": "MiB kept per step"}
WHERE = {"sleep": "after optimizer_step, outside every annotation and operator",
         "item": "after optimizer_step: loss.item() then host busy work, outside every annotation",
         "pageable": "inside get_train_batch: host.to(cuda) of an unpinned tensor",
         "syncblocks": "torch.cuda.synchronize() after each transformer block, forward (forward hook) "
                       "and backward (hook on the gradient of the block's input)",
         "extra": "inside forward, before the model: torch.mm(x, w) * 1e-4",
         "leak": "inside forward, before the model: a tensor appended to a list that is never freed"}


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab, seed):
        self.n, self.seq, self.vocab, self.seed = n, seq, vocab, seed
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 1000003 + i)
        return torch.randint(0, self.vocab, (self.seq,), generator=g)


def busy(ms):
    """Host busy work for ms milliseconds: a Python loop, not a sleep."""
    end = time.perf_counter() + ms / 1000
    x = 0
    while time.perf_counter() < end:
        for k in range(100):
            x += k
    return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=50257)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--active", type=int, default=3)
    p.add_argument("--no-shapes", action="store_true", help="record_shapes=False")
    p.add_argument("--profile-memory", action="store_true")
    p.add_argument("--plant", choices=PLANTS, default="none")
    p.add_argument("--plant-size", type=float, default=0.0)
    p.add_argument("--probe", type=int, default=0)
    p.add_argument("--out", required=True)
    a = p.parse_args()

    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    torch.manual_seed(0)
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=a.layers, n_embd=a.hidden, n_head=a.heads,
                     n_positions=max(1024, a.seq), vocab_size=a.vocab)
    model = GPT2LMHeadModel(cfg).to(dev)
    nparams = sum(q.numel() for q in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    plant = a.plant
    sx = sw = None
    ds = Tokens(a.batch * (a.iters + a.probe + 2), a.seq, a.vocab, seed=0)
    dl = torch.utils.data.DataLoader(ds, batch_size=a.batch, num_workers=2, pin_memory=True, drop_last=True)
    if plant == "pageable":
        host = torch.ones(int(a.plant_size * 2**20) // 4, dtype=torch.float32)  # not pinned
        assert not host.is_pinned()
    if plant == "extra":
        sx = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
        sw = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    if plant == "syncblocks":
        def fwd_hook(mod, args, kwargs, out):
            torch.cuda.synchronize()
        def pre_hook(mod, args, kwargs):
            h = args[0] if args else kwargs.get("hidden_states")
            if torch.is_tensor(h) and h.requires_grad:
                h.register_hook(lambda g: torch.cuda.synchronize())
        for b in model.transformer.h:
            b.register_forward_pre_hook(pre_hook, with_kwargs=True)
            b.register_forward_hook(fwd_hook, with_kwargs=True)
    kept = []
    os.makedirs(a.out, exist_ok=True)

    def on_ready(prof):
        path = os.path.join(a.out, "rank0.pt.trace.json")
        prof.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g)
        os.remove(path)

    def train_step(ids_cpu):
        """One step; returns the detached loss. Annotations as Megatron names them."""
        nonlocal sx
        with record_function("get_train_batch"):
            ids = ids_cpu.to(dev, non_blocking=True)
            if plant == "pageable":
                extra_in = host.to(dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            with record_function("forward"):
                if plant == "extra":
                    for _ in range(int(a.plant_size)):
                        sx = torch.mm(sx, sw) * 1e-4
                if plant == "leak":
                    kept.append(torch.ones(int(a.plant_size * 2**20) // 2, dtype=torch.bfloat16, device=dev))
                out = model(input_ids=ids, labels=ids)
                loss = out.loss
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer_step"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        if plant == "sleep":
            time.sleep(a.plant_size / 1000)
        elif plant == "item":
            loss.item()
            busy(a.plant_size)
        return loss.detach()

    wait, warmup = 2, 2
    sched = schedule(wait=wait, warmup=warmup, active=a.active, repeat=1)
    events = [torch.cuda.Event(enable_timing=True) for _ in range(a.iters + 1)]
    host_t = [0.0] * (a.iters + 1)
    losses, mem = [], []
    it = iter(dl)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                 record_shapes=not a.no_shapes, profile_memory=a.profile_memory, on_trace_ready=on_ready) as prof:
        host_t[0] = time.perf_counter()
        events[0].record()
        for step in range(1, a.iters + 1):
            torch.cuda.reset_peak_memory_stats(dev)
            losses.append(train_step(next(it)))
            mem.append((torch.cuda.max_memory_allocated(dev), torch.cuda.memory_allocated(dev),
                        torch.cuda.max_memory_reserved(dev)))
            events[step].record()
            host_t[step] = time.perf_counter()
            prof.step()
    torch.cuda.synchronize()
    ev_ms = [events[i - 1].elapsed_time(events[i]) for i in range(1, a.iters + 1)]
    host_ms = [(host_t[i] - host_t[i - 1]) * 1000 for i in range(1, a.iters + 1)]
    loss_v = torch.stack(losses).float().tolist()

    probe = None
    if a.probe > 0:
        enq, full = [], []
        for k in range(a.probe):
            torch.cuda.synchronize()
            if k == 0:
                torch.cuda.set_sync_debug_mode("warn")
            t0 = time.perf_counter()
            train_step(next(it))
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            if k == 0:
                torch.cuda.set_sync_debug_mode(0)
            else:
                enq.append((t1 - t0) * 1000)
                full.append((t2 - t0) * 1000)
        probe = {"iterations": a.probe - 1, "host_enqueue_ms_median": statistics.median(enq),
                 "synchronised_step_ms_median": statistics.median(full),
                 "host_enqueue_ms": [round(x, 3) for x in enq], "synchronised_step_ms": [round(x, 3) for x in full],
                 "gpu_bound_slack_ms": statistics.median(full) - statistics.median(enq)}
        json.dump(probe, open(os.path.join(a.out, "probe.json"), "w"), indent=1)

    prof_lo, prof_hi = wait + warmup + 1, wait + warmup + a.active
    with open(os.path.join(a.out, "rank0.steps.csv"), "w") as steps:
        steps.write("step,profiled,step_ms_events,host_ms,max_allocated_bytes,end_allocated_bytes,max_reserved_bytes\n")
        for i in range(a.iters):
            step = i + 1
            profiled = 1 if prof_lo <= step <= prof_hi else 0
            steps.write(f"{step},{profiled},{ev_ms[i]:.3f},{host_ms[i]:.3f},{mem[i][0]},{mem[i][1]},{mem[i][2]}\n")
    with open(os.path.join(a.out, "rank0.log"), "w") as log:
        gbs = a.batch
        flops = 72 * gbs * a.seq * a.layers * a.hidden ** 2 * (1 + a.seq / (6 * a.hidden) + a.vocab / (12 * a.layers * a.hidden))
        for i in range(a.iters):
            step, dt = i + 1, ev_ms[i] / 1000
            log.write(f" iteration {step:8d}/{a.iters:8d} | consumed samples: {step*gbs:12d} | "
                      f"elapsed time per iteration (ms): {dt*1000:.1f} | "
                      f"throughput per GPU (TFLOP/s/GPU): {flops/dt/1e12:.1f} | "
                      f"learning rate: 1.000000E-04 | global batch size: {gbs:5d} | "
                      f"lm loss: {loss_v[i]:.6E} | loss scale: 1.0 | "
                      f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
        log.write(f"params {nparams} world 1 strategy single\n")
    unprof = list(range(prof_hi + 2, a.iters + 1))
    json.dump({"plant": plant, "size": a.plant_size if plant != "none" else 0.0, "unit": UNITS.get(plant, ""),
               "where": WHERE.get(plant, ""), "rank": 0 if plant != "none" else None,
               "strategy": "single", "world": 1, "batch": a.batch, "seq": a.seq, "layers": a.layers,
               "loop": "asynchronous: no synchronisation around steps; step times from CUDA events",
               "profiled_iterations": [prof_lo, prof_hi], "export_iteration": prof_hi + 1,
               "unprofiled_iterations": unprof,
               "unprofiled_median_ms": statistics.median(ev_ms[i - 1] for i in unprof),
               "record_shapes": not a.no_shapes, "profile_memory": a.profile_memory,
               "probe": {k: v for k, v in probe.items() if not isinstance(v, list)} if probe else None},
              open(os.path.join(a.out, "truth.json"), "w"), indent=1)
    print(f"{plant} {a.plant_size}: unprofiled median {statistics.median(ev_ms[i - 1] for i in unprof):.2f} ms "
          f"(host {statistics.median(host_ms[i - 1] for i in unprof):.2f} ms)"
          + (f"; probe: enqueue {probe['host_enqueue_ms_median']:.2f} ms, synchronised step "
             f"{probe['synchronised_step_ms_median']:.2f} ms" if probe else ""))


if __name__ == "__main__":
    main()
