# generated from chapters/24-measuring.nw; edit the book, not this file
"""Time torch.nn.MultiheadAttention like `mha bench`.
usage: bench_torch.py --threads N --reps R SHAPE...   SHAPE is "B L E H causal"
       bench_torch.py --threads N --reps R --decode "B E H T"
       bench_torch.py --threads N --reps R --backward "B L E H causal"
       bench_torch.py --threads N --train "STEPS"   (mha train's default model)
       bench_torch.py --threads N --reps R --lm "B T E H LAYERS V"   (the small GPT)
--blas-threads M gives OpenBLAS, which does PyTorch's products, M threads of its own.
"""
import ctypes, os, statistics, sys, time
if "--blas-threads" in sys.argv[:-1]:            # read before PyTorch loads OpenBLAS
    os.environ["OPENBLAS_NUM_THREADS"] = sys.argv[sys.argv.index("--blas-threads") + 1]
import torch

def blas_threads():
    """The threads of the OpenBLAS that PyTorch loaded (its own pool, not PyTorch's)."""
    try:
        return ctypes.CDLL("libblas.so.3").openblas_get_num_threads()
    except (OSError, AttributeError):
        return "--"


def row(line):
    print(f"{line} blas_threads={blas_threads()}")


def median_ms(run, reps):
    run()                                         # warm up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def forward(B, L, E, H, causal, reps, threads):
    m = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
    x = torch.rand(B, L, E) * 2 - 1
    mask = torch.triu(torch.ones(L, L, dtype=torch.bool), 1) if causal else None
    with torch.no_grad():
        ms = median_ms(lambda: m(x, x, x, attn_mask=mask, need_weights=False), reps)
    share = (L + 1) / (2 * L) if causal else 1         # bench_flop_count's causal share
    flops = 8 * B * L * E * E + 4 * B * L * L * E * share
    row(f"impl=torch B={B} L={L} S={L} E={E} H={H} causal={int(causal)} reps={reps} "
          f"ms={ms:.3f} gflops={flops / ms / 1e6:.2f} threads={threads} part=all")
def decode(B, E, H, T, reps, threads):
    m = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
    D = E // H
    keys, values = torch.rand(B, H, T + 1, D), torch.rand(B, H, T + 1, D)
    x = torch.rand(B, 1, E)
    w, b = m.in_proj_weight, m.in_proj_bias

    def step():
        q, k, v = torch.nn.functional.linear(x, w, b).split(E, dim=-1)   # (B, 1, E) each
        keys[:, :, T] = k.view(B, H, D)
        values[:, :, T] = v.view(B, H, D)
        s = torch.matmul(q.view(B, H, 1, D), keys.transpose(2, 3)) / D ** 0.5
        c = torch.matmul(torch.softmax(s, dim=-1), values)             # (B, H, 1, D)
        return m.out_proj(c.reshape(B, 1, E))

    with torch.no_grad():
        ms = median_ms(step, reps)
    row(f"impl=torch decode=1 B={B} E={E} H={H} kv_heads={H} T={T} reps={reps} "
          f"ms={ms:.3f} threads={threads}")
def main(args):
    threads, reps, is_decode, shapes, learning = 1, 7, False, [], None
    while args:
        a = args.pop(0)
        if a == "--threads":
            threads = int(args.pop(0))
        elif a == "--reps":
            reps = int(args.pop(0))
        elif a == "--blas-threads":
            args.pop(0)                           # taken before PyTorch was loaded
        elif a == "--decode":
            is_decode = True
        elif a in LEARNING_MODES:
            learning = LEARNING_MODES[a]
        else:
            shapes.append([int(v) for v in a.split()])
    torch.set_num_threads(threads)
    for s in shapes:
        if learning:
            learning(s, reps, threads)
        elif is_decode:
            decode(*s, reps, threads)
        else:
            forward(*s[:4], bool(s[4]), reps, threads)
def backward(s, reps, threads):
    B, L, E, H, causal = s[0], s[1], s[2], s[3], bool(s[4])
    m = torch.nn.MultiheadAttention(E, H, batch_first=True).train()
    x = (torch.rand(B, L, E) * 2 - 1).requires_grad_(True)
    grad = torch.rand(B, L, E) * 2 - 1
    mask = torch.triu(torch.ones(L, L, dtype=torch.bool), 1) if causal else None

    def step():
        x.grad = None
        m.zero_grad(set_to_none=True)
        y, _ = m(x, x, x, attn_mask=mask, need_weights=False)
        y.backward(grad)

    ms = median_ms(step, reps)
    row(f"impl=torch backward=1 B={B} L={L} S={L} E={E} H={H} causal={int(causal)} "
          f"reps={reps} ms={ms:.3f} threads={threads}")
class Induction(torch.nn.Module):
    def __init__(self, V=64, T=32, E=32, H=2, layers=2):
        super().__init__()
        self.tok, self.pos = torch.nn.Embedding(V, E), torch.nn.Parameter(torch.zeros(T, E))
        self.layers = torch.nn.ModuleList(torch.nn.MultiheadAttention(E, H, batch_first=True)
                                          for _ in range(layers))
        self.unembed = torch.nn.Linear(E, V, bias=False)
        self.mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos
        for layer in self.layers:
            x = x + layer(x, x, x, attn_mask=self.mask, need_weights=False)[0]
        return self.unembed(x)
def train(s, reps, threads, B=32, T=32, V=64):
    steps = s[0]
    model = Induction()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, betas=(0.9, 0.98), eps=1e-8,
                            weight_decay=0.01)
    warmup = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: min(1.0, (t + 1) / 101))
    t0 = time.perf_counter()
    for _ in range(steps):
        tokens = torch.randint(0, V, (B, T))
        logits = model(tokens)[:, :-1]
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        warmup.step()
    ms = 1e3 * (time.perf_counter() - t0)
    row(f"impl=torch train=1 steps={steps} ms={ms:.1f} threads={threads}")


def lm(s, reps, threads):
    B, T, E, H, N, V = s
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    from lm_eval_torch import GPT
    model = GPT(V, T, E, H, N, 4 * E)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)

    def step():
        x = torch.randint(0, V, (B, T + 1))
        logits = model(x[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(3):
        step()
    ms = median_ms(step, reps)
    row(f"impl=torch lm=1 B={B} T={T} E={E} H={H} layers={N} V={V} reps={reps} "
          f"ms={ms:.1f} tokens_per_s={B * T / ms * 1e3:.0f} threads={threads}")


LEARNING_MODES = {"--backward": backward, "--train": train, "--lm": lm}

if __name__ == "__main__":
    main(sys.argv[1:])
