# generated from chapters/24-measuring.nw; edit the book, not this file
"""Time ONNX Runtime's com.microsoft.MultiHeadAttention (the attention core) like `mha bench`.
usage: bench_onnx.py --modules DIR --threads N --reps R SHAPE...   SHAPE is "B L E H causal"
       bench_onnx.py --modules DIR --threads N --reps R --decode "B E H T"...
DIR holds the npm package onnxruntime-node; the model is written here, by hand."""
import os, struct, subprocess, sys, tempfile
import numpy as np

def varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, value):
    """One protobuf field: an int as a varint, a float as four bytes, bytes or text
    as a length and the bytes."""
    if isinstance(value, int):
        return varint(number << 3 | 0) + varint(value)
    if isinstance(value, float):
        return varint(number << 3 | 5) + struct.pack("<f", value)
    value = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(value)) + value


def tensor(name, dims):
    """A ValueInfoProto: a float tensor of the given dimensions."""
    shape = b"".join(field(1, field(1, d)) for d in dims)
    return field(1, name) + field(2, field(1, field(1, 1) + field(2, shape)))


def model(inputs, out_dims, H, causal):
    """A ModelProto whose graph is one MultiHeadAttention node on projected Q, K, V,
    inputs mapping each name to its dimensions."""
    attrs = [field(1, "num_heads") + field(3, H) + field(20, 2)]
    if causal:
        attrs.append(field(1, "unidirectional") + field(3, 1) + field(20, 2))
    node = b"".join(field(1, n) for n in ("query", "key", "value")) + field(2, "output") \
        + field(3, "attention") + field(4, "MultiHeadAttention") \
        + b"".join(field(5, a) for a in attrs) + field(7, "com.microsoft")
    graph = field(1, node) + field(2, "core") \
        + b"".join(field(11, tensor(n, dims)) for n, dims in inputs.items()) \
        + field(12, tensor("output", out_dims))
    opsets = field(8, field(1, "") + field(2, 17)) \
        + field(8, field(1, "com.microsoft") + field(2, 1))
    return field(1, 8) + field(2, "mha-book") + field(7, graph) + opsets
def reference(q, k, v, H, causal):
    """softmax(Q K^T / sqrt(D)) V per head, in float64; K and V either B x L x E
    like Q, or already split into heads, B x H x T x D."""
    B, L, E = q.shape
    D = E // H
    split = lambda x: x.astype(np.float64) if x.ndim == 4 else \
        x.astype(np.float64).reshape(B, -1, H, D).transpose(0, 2, 1, 3)
    s = split(q) @ split(k).transpose(0, 1, 3, 2) / np.sqrt(D)
    if causal:
        s = np.where(np.tril(np.ones((L, L), bool)), s, -np.inf)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ split(v)).transpose(0, 2, 1, 3).reshape(B, L, E)


def timed(modules, threads, reps, arrays, H, causal):
    """The median ms and the version of ONNX Runtime, and the first run's output."""
    q = arrays["query"]
    with tempfile.TemporaryDirectory() as d:
        with open(f"{d}/model.onnx", "wb") as f:
            f.write(model({n: x.shape for n, x in arrays.items()}, q.shape, H, causal))
        with open(f"{d}/inputs.txt", "w") as f:
            for name, x in arrays.items():
                x.tofile(f"{d}/{name}.f32")
                f.write(f"{name} {' '.join(map(str, x.shape))}\n")
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_onnx.js")
        done = subprocess.run(["node", script, d, str(threads), str(reps)], text=True,
                              capture_output=True,
                              env=dict(os.environ, NODE_PATH=os.path.abspath(modules)))
        if done.returncode != 0:
            sys.exit((done.stderr.strip().splitlines() or ["bench_onnx.js failed"])[0])
        out = np.fromfile(f"{d}/output.f32", dtype=np.float32).reshape(q.shape)
    got = dict(f.split("=", 1) for f in done.stdout.split())
    worst = np.abs(out - reference(arrays["query"], arrays["key"], arrays["value"], H,
                                   causal)).max()
    return float(got["ms"]), got["version"], worst


def run(modules, threads, reps, B, L, E, H, causal):
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((B, L, E), dtype=np.float32) for _ in range(3))
    ms, version, worst = timed(modules, threads, reps, dict(query=q, key=k, value=v), H, causal)
    pairs = L * (L + 1) / 2 if causal else L * L
    print(f"impl=onnxruntime B={B} L={L} S={L} E={E} H={H} causal={causal} reps={reps} "
          f"ms={ms:.3f} gflops={4 * B * pairs * E / (ms * 1e6):.2f} threads={threads} "
          f"part=attention version={version} maxdiff={worst:.2g}", flush=True)
def run_decode(modules, threads, reps, B, E, H, T):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((B, 1, E), dtype=np.float32)
    k, v = (rng.standard_normal((B, H, T, E // H), dtype=np.float32) for _ in range(2))
    ms, version, worst = timed(modules, threads, reps, dict(query=q, key=k, value=v), H, 0)
    print(f"impl=onnxruntime decode=1 B={B} E={E} H={H} kv_heads={H} T={T} reps={reps} "
          f"ms={ms:.3f} threads={threads} part=attention version={version} "
          f"bytes={4 * (2 * B * T * E + 2 * B * E)} maxdiff={worst:.2g}", flush=True)


def main(argv):
    opts = {"--modules": "build/onnx/node_modules", "--threads": "1", "--reps": "7"}
    while argv and argv[0] in opts:
        opts[argv[0]], argv = argv[1], argv[2:]
    decode = argv[:1] == ["--decode"]
    for shape in argv[decode:]:
        common = (opts["--modules"], int(opts["--threads"]), int(opts["--reps"]))
        if decode:
            run_decode(*common, *map(int, shape.split()))
        else:
            run(*common, *map(int, shape.split()))

if __name__ == "__main__":
    main(sys.argv[1:])
