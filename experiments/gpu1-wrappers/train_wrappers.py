"""train_wrappers.py: one small model trained under each data-parallel wrapper
PyTorch has, at world size 1 on one GPU, to check perfstudy's strategy from
the wrappers' annotations (runs.csv strategy, strategy_source; perfstudy
issue #57 item 7) on a recording made after that code was written. The
bundled runs it was written against are HF GPT-2 models under DDP, ZeRO-1
(ZeroRedundancyOptimizer over DDP) and FSDP2 (fully_shard per block and on
the model); this one differs on purpose: a plain torch.nn.Transformer
encoder (no transformers), FSDP1 (FullyShardedDataParallel) in its three
sharding strategies, FSDP2 on the whole model only, and ZeroRedundancy-
Optimizer without DDP. Ours.

Runs (one process, one after the other, each freed before the next), per
run in OUT/<run>: rank0.log (Megatron format, one line per iteration, no
"strategy" line: the strategy must come from the trace),
rank0.pt.trace.json.gz (iteration 4 profiled: schedule wait 2, warmup 1,
active 1) and truth.json (the wrapper, its options, and the ZeRO stage it
amounts to on more than one rank).

  single        no wrapper
  ddp           DistributedDataParallel
  zero1-ddp     ZeroRedundancyOptimizer(AdamW) over DDP
  zero1-bare    ZeroRedundancyOptimizer(AdamW), no DDP wrapper
  fsdp1-full    FSDP1, ShardingStrategy.FULL_SHARD (ZeRO-3)
  fsdp1-grad    FSDP1, ShardingStrategy.SHARD_GRAD_OP (ZeRO-2)
  fsdp1-noshard FSDP1, ShardingStrategy.NO_SHARD (DDP-like)
  fsdp2-zero2   fully_shard(model, reshard_after_forward=False)
  fsdp2-zero3   fully_shard(model, reshard_after_forward=True)
"""
import argparse, gc, gzip, json, os, shutil, time
import torch
import torch.distributed as dist
from torch.profiler import profile, ProfilerActivity, schedule

RUNS = ["single", "ddp", "zero1-ddp", "zero1-bare", "fsdp1-full", "fsdp1-grad", "fsdp1-noshard",
        "fsdp2-zero2", "fsdp2-zero3"]
# what each wrapper amounts to on more than one rank
TRUTH = {"single": ("none", None), "ddp": ("DistributedDataParallel", 0),
         "zero1-ddp": ("ZeroRedundancyOptimizer over DistributedDataParallel", 1),
         "zero1-bare": ("ZeroRedundancyOptimizer", 1),
         "fsdp1-full": ("FullyShardedDataParallel FULL_SHARD", 3),
         "fsdp1-grad": ("FullyShardedDataParallel SHARD_GRAD_OP", 2),
         "fsdp1-noshard": ("FullyShardedDataParallel NO_SHARD", 0),
         "fsdp2-zero2": ("fully_shard reshard_after_forward=False", 2),
         "fsdp2-zero3": ("fully_shard reshard_after_forward=True", 3)}


class Net(torch.nn.Module):
	def __init__(self, d, layers, vocab):
		super().__init__()
		self.emb = torch.nn.Embedding(vocab, d)
		layer = torch.nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True, norm_first=True)
		self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
		self.head = torch.nn.Linear(d, vocab)

	def forward(self, ids):
		return self.head(self.enc(self.emb(ids)))


def wrap(run, model):
	from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
	if run in ("ddp", "zero1-ddp"):
		return torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])
	if run.startswith("fsdp1-"):
		s = {"full": ShardingStrategy.FULL_SHARD, "grad": ShardingStrategy.SHARD_GRAD_OP,
		     "noshard": ShardingStrategy.NO_SHARD}[run[6:]]
		return FSDP(model, sharding_strategy=s, device_id=0)
	if run.startswith("fsdp2-"):
		from torch.distributed.fsdp import fully_shard
		fully_shard(model, reshard_after_forward=run == "fsdp2-zero3")
	return model


def train(a, run):
	out = os.path.join(a.out, run)
	os.makedirs(out, exist_ok=True)
	torch.manual_seed(0)
	dev = torch.device("cuda", 0)
	model = wrap(run, Net(a.d, a.layers, a.vocab).to(dev))
	nparams = sum(q.numel() for q in model.parameters())
	if run.startswith("zero1"):
		from torch.distributed.optim import ZeroRedundancyOptimizer
		opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
	else:
		opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
	g = torch.Generator(device=dev).manual_seed(0)

	def on_ready(prof):
		path = os.path.join(out, "rank0.pt.trace.json")
		prof.export_chrome_trace(path)
		with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as z:
			shutil.copyfileobj(f, z)
		os.remove(path)

	prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
		       schedule=schedule(wait=2, warmup=1, active=1, repeat=1), on_trace_ready=on_ready)
	prof.start()
	log = open(os.path.join(out, "rank0.log"), "w")
	for step in range(1, a.iters + 1):
		ids = torch.randint(0, a.vocab, (a.batch, a.seq), device=dev, generator=g)
		torch.cuda.synchronize()
		t0 = time.perf_counter()
		with torch.autocast("cuda", dtype=torch.bfloat16):
			logits = model(ids)
			loss = torch.nn.functional.cross_entropy(logits.float().view(-1, a.vocab), ids.view(-1))
		loss.backward()
		opt.step()
		opt.zero_grad(set_to_none=True)
		torch.cuda.synchronize()
		dt = time.perf_counter() - t0
		prof.step()
		log.write(f" iteration {step:8d}/{a.iters:8d} | consumed samples: {step*a.batch:12d} | "
			  f"elapsed time per iteration (ms): {dt*1000:.1f} | learning rate: 1.000000E-04 | "
			  f"global batch size: {a.batch:5d} | lm loss: {loss.item():.6E} | loss scale: 1.0 | "
			  f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
	prof.stop()
	log.close()
	wrapper, stage = TRUTH[run]
	json.dump({"run": run, "wrapper": wrapper, "zero_stage_on_many_ranks": stage, "world": 1,
		   "params": nparams, "layers": a.layers, "d": a.d, "vocab": a.vocab, "batch": a.batch,
		   "seq": a.seq, "iterations": a.iters, "profiled_iteration": 4,
		   "torch": torch.__version__}, open(os.path.join(out, "truth.json"), "w"), indent=1)
	print(f"{run} done, {nparams} parameters", flush=True)
	del model, opt, loss, logits, ids, g, prof
	gc.collect()
	torch.cuda.empty_cache()


def main():
	p = argparse.ArgumentParser()
	p.add_argument("--runs", default=",".join(RUNS))
	p.add_argument("--d", type=int, default=256)
	p.add_argument("--layers", type=int, default=2)
	p.add_argument("--vocab", type=int, default=8192)
	p.add_argument("--batch", type=int, default=4)
	p.add_argument("--seq", type=int, default=128)
	p.add_argument("--iters", type=int, default=20)
	p.add_argument("--out", required=True)
	a = p.parse_args()
	os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
	os.environ.setdefault("MASTER_PORT", "29511")
	torch.cuda.set_device(0)
	dist.init_process_group("nccl", rank=0, world_size=1)
	for run in a.runs.split(","):
		try:
			train(a, run)
		except Exception as e:  # a wrapper this PyTorch lacks: say so, go on
			print(f"{run} FAILED: {type(e).__name__}: {e}", flush=True)
	dist.destroy_process_group()


if __name__ == "__main__":
	main()
