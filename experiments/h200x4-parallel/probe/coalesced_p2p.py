# coalesced_p2p.py: what PyTorch writes into a Kineto trace for a
# batch_isend_irecv under NCCL (the call torch.distributed.pipelining makes
# for every transfer between stages). One process, one GPU: a batch of a
# send and a recv to itself (NCCL allows that inside one group), then a
# batch of one send to itself, which NCCL refuses ("Trying to send to self
# without a matching recv"). Ran on the device's single H200 on 2026-11-29
# (torch 2.11.0+cu130, NCCL 2.28.9) as
#   OUT=$OUT python3 coalesced_p2p.py
# giving coalesced_p2p.pt.trace.json.gz (here, gzipped). SOURCE.md says
# what the trace shows.
import os

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29511")
torch.cuda.set_device(0)
dist.init_process_group("nccl", rank=0, world_size=1)
t = torch.ones(1 << 20, device="cuda")
r = torch.empty_like(t)


def step():
    ops = [dist.P2POp(dist.isend, t, 0), dist.P2POp(dist.irecv, r, 0)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    try:
        for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, t, 0)]):
            w.wait()
    except Exception as e:
        print("single", e)


step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
    step()
    torch.cuda.synchronize()
p.export_chrome_trace(os.environ["OUT"] + "/self.json")
