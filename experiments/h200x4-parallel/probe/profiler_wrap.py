"""profiler_wrap.py: does a torch.profiler context slow the iterations it
does not record? One process, one GPT-2 125M (HF, bf16 autocast, batch 4,
seq 1024, AdamW) on one GPU, segments of 40 iterations in turn:
  none   no profiler;
  wrap   the loop inside profile(schedule(wait=10, warmup=1, active=1)),
         prof.step() after each iteration, as our generators (and most
         training scripts) do: iteration 12 recorded, 13 pays the export.
Order: none, wrap, none, wrap, none. Writes OUT/times.csv
(segment,mode,iteration,ms). Ours (perfstudy; the generators' design)."""
import os, sys, time
import torch
from torch.profiler import profile, ProfilerActivity, schedule
from transformers import GPT2Config, GPT2LMHeadModel

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = torch.device("cuda", 0)
torch.manual_seed(0)
with dev:
    model = GPT2LMHeadModel(GPT2Config(n_layer=12, n_embd=768, n_head=12, vocab_size=50257))
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
g = torch.Generator(device=dev).manual_seed(0)
rows = []


def it():
    ids = torch.randint(0, 50257, (4, 1024), device=dev, generator=g)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1000


for seg, mode in enumerate(["none", "wrap", "none", "wrap", "none"]):
    if mode == "none":
        for i in range(1, 41):
            rows.append((seg, mode, i, it()))
    else:
        ready = lambda p, seg=seg: p.export_chrome_trace(os.path.join(out, f"seg{seg}.json"))
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     schedule=schedule(wait=10, warmup=1, active=1, repeat=1), on_trace_ready=ready) as prof:
            for i in range(1, 41):
                rows.append((seg, mode, i, it()))
                prof.step()
with open(os.path.join(out, "times.csv"), "w") as f:
    f.write("segment,mode,iteration,ms\n")
    for r in rows:
        f.write("%d,%s,%d,%.3f\n" % r)
for s in range(5):
    v = [r[3] for r in rows if r[0] == s]
    med = lambda x: sorted(x)[len(x) // 2]
    print(s, rows[s * 40][1], "it3-10 %.2f" % med(v[2:10]), "it14-40 %.2f" % med(v[13:40]), "it12 %.2f" % v[11])
