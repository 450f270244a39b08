"""jax_train.py NDEV OUTDIR: data-parallel training of a small decoder-only
transformer in JAX on NDEV GPUs (one process, batch sharded over a 1-D mesh,
parameters replicated, so XLA all-reduces the gradients), 30 iterations,
iterations 5-7 profiled with jax.profiler.trace (xplane.pb and
perfetto_trace.json.gz), each iteration under StepTraceAnnotation("train").
OUTDIR/rank0.log gets one line per iteration in Megatron's training_log
format, as train_trace.py writes it."""
import os, sys, time
import numpy as np
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

ndev, out = int(sys.argv[1]), sys.argv[2]
ITERS, PROF = 30, (5, 7)
L, D, H, S, V, BPD = 6, 768, 12, 512, 32768, 8
B = BPD * ndev
mesh = Mesh(np.array(jax.devices()[:ndev]), ("data",))
rep, dat = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))


def init(key):
    k = iter(jax.random.split(key, 6 * L + 2))
    n = lambda *s: jax.random.normal(next(k), s, jnp.float32) * 0.02
    return {"emb": n(V, D), "pos": n(S, D),
            "layers": [{"wqkv": n(D, 3 * D), "wo": n(D, D), "w1": n(D, 4 * D),
                        "w2": n(4 * D, D), "g1": jnp.ones(D), "g2": jnp.ones(D)}
                       for _ in range(L)]}


def norm(x, g):
    x = x - x.mean(-1, keepdims=True)
    return g * x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-5)


def forward(p, ids):
    bf = jnp.bfloat16
    x = (p["emb"][ids] + p["pos"][None]).astype(bf)
    for l in p["layers"]:
        h = norm(x, l["g1"].astype(bf))
        q, k, v = jnp.split(h @ l["wqkv"].astype(bf), 3, axis=-1)
        sh = lambda t: t.reshape(t.shape[0], S, H, D // H)
        a = jax.nn.dot_product_attention(sh(q), sh(k), sh(v), is_causal=True)
        x = x + a.reshape(x.shape) @ l["wo"].astype(bf)
        h = norm(x, l["g2"].astype(bf))
        x = x + jax.nn.gelu(h @ l["w1"].astype(bf)) @ l["w2"].astype(bf)
    logits = (x @ p["emb"].T.astype(bf)).astype(jnp.float32)
    lp = jax.nn.log_softmax(logits[:, :-1])
    return -jnp.take_along_axis(lp, ids[:, 1:, None], -1).mean()


@jax.jit
def step(p, m, ids):
    loss, g = jax.value_and_grad(forward)(p, ids)
    m = jax.tree.map(lambda m, g: 0.9 * m + g, m, g)
    p = jax.tree.map(lambda p, m: p - 1e-3 * m, p, m)
    return p, m, loss


p = jax.device_put(init(jax.random.PRNGKey(0)), rep)
m = jax.tree.map(jnp.zeros_like, p)
nparams = sum(x.size for x in jax.tree.leaves(p))
rng = np.random.default_rng(0)
os.makedirs(out, exist_ok=True)
log = open(os.path.join(out, "rank0.log"), "w")
for it in range(1, ITERS + 1):
    if it == PROF[0]:
        jax.profiler.start_trace(os.path.join(out, "profile"), create_perfetto_trace=True)
    ids = jax.device_put(rng.integers(0, V, (B, S), dtype=np.int32), dat)
    t0 = time.perf_counter()
    with jax.profiler.StepTraceAnnotation("train", step_num=it):
        p, m, loss = step(p, m, ids)
        loss = float(jax.block_until_ready(loss))
    dt = time.perf_counter() - t0
    if it == PROF[1]:
        jax.profiler.stop_trace()
    flops = 72 * B * S * L * D ** 2 * (1 + S / (6 * D) + V / (12 * L * D))
    log.write(f" iteration {it:8d}/{ITERS:8d} | consumed samples: {it*B:12d} | "
              f"elapsed time per iteration (ms): {dt*1000:.1f} | "
              f"throughput per GPU (TFLOP/s/GPU): {flops/dt/ndev/1e12:.1f} | "
              f"learning rate: 1.000000E-03 | global batch size: {B:5d} | "
              f"lm loss: {loss:.6E} | loss scale: 1.0 | "
              f"number of skipped iterations:   0 | number of nan iterations:   0 |\n")
log.write(f"params {nparams} world {ndev} strategy jax-dp\n")
log.close()
