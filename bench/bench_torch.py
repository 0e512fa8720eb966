# generated from chapters/24-measuring.nw; edit the book, not this file
"""Time torch.nn.MultiheadAttention like `mha bench`.
usage: bench_torch.py --threads N --reps R SHAPE...   SHAPE is "B L E H causal"
       bench_torch.py --threads N --reps R --decode "B E H T"
"""
import statistics, sys, time
import torch

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
    print(f"impl=torch B={B} L={L} S={L} E={E} H={H} causal={int(causal)} reps={reps} "
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
    print(f"impl=torch decode=1 B={B} E={E} H={H} kv_heads={H} T={T} reps={reps} "
          f"ms={ms:.3f} threads={threads}")
def main(args):
    threads, reps, is_decode, shapes = 1, 7, False, []
    while args:
        a = args.pop(0)
        if a == "--threads":
            threads = int(args.pop(0))
        elif a == "--reps":
            reps = int(args.pop(0))
        elif a == "--decode":
            is_decode = True
        else:
            shapes.append([int(v) for v in a.split()])
    torch.set_num_threads(threads)
    for s in shapes:
        if is_decode:
            decode(*s, reps, threads)
        else:
            forward(*s[:4], bool(s[4]), reps, threads)

if __name__ == "__main__":
    main(sys.argv[1:])
