# generated from chapters/24-measuring.nw; edit the book, not this file
"""Turn `make bench`'s key=value lines into the fast chapters' tables, roofline and numbers.
usage: bench_report.py BENCH_TXT OUT_DIR MACHINE_DESCRIPTION"""
import re, statistics, sys

def kept_pairs(L, S, causal):
    """The query-key pairs of a head a causal mask leaves (all L S without one)."""
    L, S = float(L), float(S)
    if not causal:
        return L * S
    return L * (L + 1) / 2 if L <= S else S * (S + 1) / 2 + (L - S) * S


def useful_flops(B, L, S, E, causal):
    """Chapter 1's count of a forward pass, the scores and weighted sums over the
    pairs a causal mask leaves (bench_flop_count's rule)."""
    B, L, S, E = float(B), float(L), float(S), float(E)
    return 2 * B * L * E * E + 4 * B * S * E * E + 2 * B * L * E * E \
        + 4 * B * kept_pairs(L, S, causal) * E


def backward_work(r):
    """A forward+backward row's useful operations: three forward passes' worth."""
    return 3 * useful_flops(r["B"], r["L"], r["S"], r["E"], r["causal"] == "1")


def backward_share(r, peaks):
    """A forward+backward row's useful rate as a fraction of the peak, or None."""
    peak = peaks.get(r.get("threads"))
    return backward_work(r) / (float(r["ms"]) * 1e6) / peak if peak else None


def backward_table(rows, peaks):
    out = ["\\begin{tabular}{llrrrr}\\toprule",
           "shape & version & threads & ms & of peak & vs PyTorch \\\\ \\midrule"]
    for B, L, E, H, causal in (("4", "512", "512", "8", "0"), ("1", "2048", "768", "12", "1")):
        same = dict(backward=1, B=B, L=L, E=E, H=H, causal=causal)
        torch = best(rows, impl="torch", **same)
        label = (f"$B{{=}}{B}$ $L{{=}}{L}$ $E{{=}}{E}$ $H{{=}}{H}$"
                 + (" causal" if causal == "1" else ""))
        for r in rows:
            if (r.get("backward") == "1" and r.get("part") != "stages"
                    and all(r.get(k) == str(v) for k, v in same.items())):
                speedup = f"{float(torch['ms']) / float(r['ms']):.1f}$\\times$" if torch else "--"
                share = backward_share(r, peaks)
                share = f"{100 * share:.0f}\\%" if share is not None else "--"
                out.append(f"{label} & {r['impl']} & {r['threads']} & {float(r['ms']):.1f} & "
                           f"{share} & {speedup} \\\\")
                label = ""
        out.append("\\midrule")
    out[-1] = "\\bottomrule\\end{tabular}"
    return "\n".join(out) + "\n"
def training_table(rows):
    out = ["\\begin{tabular}{lrrrr}\\toprule",
           "version & threads & seconds & steps/s & vs PyTorch \\\\ \\midrule"]
    torch = best(rows, impl="torch", train=1)
    for r in rows:
        if r.get("train") == "1":
            seconds = float(r["ms"]) / 1e3
            speedup = f"{float(torch['ms']) / float(r['ms']):.1f}$\\times$" if torch else "--"
            threads = r["threads"] + (f" (OpenBLAS {r['blas_threads']})"
                                      if "blas_threads" in r else "")
            out.append(f"{'ours' if r['impl'] == 'ours' else 'PyTorch'} & {threads} & "
                       f"{seconds:.2f} & {float(r['steps']) / seconds:.0f} & {speedup} \\\\")
    out.append("\\bottomrule\\end{tabular}")
    return "\n".join(out) + "\n"


def learning_numbers(rows, peaks):
    def ratio(a, b):
        return f"{float(a['ms']) / float(b['ms']):.1f}" if a and b else "--"

    def share(r):
        got = backward_share(r, peaks) if r else None
        return f"{100 * got:.0f}" if got is not None else "--"
    dense, long = dict(B=4, L=512, E=512, H=8, causal=0), dict(B=1, L=2048, E=768, H=12, causal=1)
    ours_train, torch_train = best(rows, impl="ours", train=1), best(rows, impl="torch", train=1)
    ours_dense = best(rows, impl="blocked", backward=1, **dense)
    ours_long = best(rows, impl="blocked", backward=1, **long)
    torch_dense = best(rows, impl="torch", backward=1, **dense)
    stages = best(rows, part="stages", backward=1, **dense)
    proj_ms = sum(float(stages[k]) for k, _, kind, _ in BACKWARD_STAGES if kind == "proj") \
        if stages else None
    core_ms = sum(float(stages[k]) for k, _, kind, _ in BACKWARD_STAGES if kind == "core") \
        if stages else None
    long_stages = best(rows, part="stages", backward=1, **long)
    m = {"LearnBackwardDenseSpeedup": ratio(torch_dense, ours_dense),
         "LearnBackwardDensePeak": share(ours_dense),
         "LearnBackwardCausalPeak": share(ours_long),
         "LearnDenseProjShare": f"{100 * proj_ms / float(stages['ms']):.0f}" if stages else "--",
         "LearnDenseCoreShare": f"{100 * core_ms / float(stages['ms']):.0f}" if stages else "--",
         "LearnBackwardCausalSpeedup": ratio(best(rows, impl="torch", backward=1, **long),
                                             ours_long),
         "LearnTrainSpeedup": ratio(torch_train, ours_train),
         "LearnTrainSeconds": f"{float(ours_train['ms']) / 1e3:.2f}" if ours_train else "--",
         "LearnTorchTrainSeconds": f"{float(torch_train['ms']) / 1e3:.2f}" if torch_train else "--"}
    for prefix, r in (("LearnDense", stages), ("LearnCausal", long_stages)):
        m.update(gap_numbers(prefix, r, BACKWARD_STAGES, backward_work(r) if r else 0, peaks))
    return "".join(f"\\newcommand{{\\{k}}}{{{v}}}\n" for k, v in m.items())


def learning_files(path, peaks):
    try:
        rows = read(path)
    except OSError:
        rows = []
    return {"bench-backward.tex": backward_table(rows, peaks),
            "bench-training.tex": training_table(rows),
            "bench-backward-stages.tex": backward_stages_table(rows, peaks),
            "bench-learning-numbers.tex": learning_numbers(rows, peaks)}
BACKWARD_STAGES = [("fwd_proj_ms", "forward: input projections", "proj", 3),
                   ("fwd_core_ms", "forward: attention core", "core", 2),
                   ("fwd_out_ms", "forward: output projection", "proj", 1),
                   ("bwd_out_ms", "backward: output projection", "proj", 2),
                   ("bwd_core_ms", "backward: attention core", "core", 5),
                   ("bwd_in_ms", "backward: input projections", "proj", 6),
                   ("outside_ms", "outside the parts", None, 0), ("ms", "whole step", None, 0)]


FORWARD_STAGES = [("pack_ms", "packing the weights", "pack", 0),
                  ("proj_in_ms", "input projection", "proj", 3),
                  ("attention_ms", "attention core", "core", 2),
                  ("proj_out_ms", "output projection", "proj", 1),
                  ("outside_ms", "outside the parts", None, 0)]


def stage_flops(r, kind, count):
    B, L, E = int(r["B"]), int(r["L"]), int(r["E"])
    if kind == "proj":
        return count * 2.0 * B * L * E * E
    if kind == "core":
        return count * 2.0 * B * kept_pairs(L, int(r["S"]), r["causal"] == "1") * E
    return 0.0


def stage_peak(r, stages, kinds, peaks):
    """The fraction of the peak at which a row's stages of these kinds run (or None)."""
    chosen = [(key, kind, count) for key, _, kind, count in stages if kind in kinds]
    ms = sum(float(r[key]) for key, _, _ in chosen)
    work = sum(stage_flops(r, kind, count) for _, kind, count in chosen)
    peak = peaks.get(r["threads"])
    return work / (ms * 1e6) / peak if peak and ms > 0 and work > 0 else None


def time_beyond_peak(r, stages, useful, peaks):
    """A stage row's ms beyond its useful operations at the peak, 'gap', and its parts."""
    ms = lambda flops: flops / peaks[r["threads"]] / 1e6
    out = dict(proj=0.0, core=0.0, outside=0.0, again=-ms(useful))
    out["gap"] = float(r["ms"]) - ms(useful)
    for key, _, kind, count in (stage for stage in stages if stage[0] != "ms"):
        out["again"] += ms(stage_flops(r, kind, count))
        out[{"pack": "proj", None: "outside"}.get(kind, kind)] += \
            float(r[key]) - ms(stage_flops(r, kind, count))
    return out


def gap_numbers(prefix, r, stages, useful, peaks):
    """Macros: a stage row's gap, each part's share of it, the products' rates."""
    ok = r and r["threads"] in peaks
    gap = time_beyond_peak(r, stages, useful, peaks) if ok else {}
    m = {prefix + "GapMs": f"{gap['gap']:.0f}" if ok else "--"}
    for name in ("proj", "core", "outside", "again"):
        share = 100 * gap[name] / gap["gap"] if ok else None
        m[prefix + "Gap" + name.capitalize()] = f"{round(share)}" if ok else "--"
    for name in ("proj", "core"):
        rate = stage_peak(r, stages, (name,), peaks) if ok else None
        m[prefix + name.capitalize() + "Peak"] = f"{100 * rate:.0f}" if rate else "--"
    return m


def backward_stages_table(rows, peaks):
    staged = [r for r in rows if r.get("backward") == "1" and r.get("part") == "stages"]
    out = ["\\begin{tabular}{l" + "rrr" * len(staged) + "}\\toprule",
           "stage" + "".join(f" & \\multicolumn{{3}}{{c}}{{$B{{=}}{r['B']}$ $L{{=}}{r['L']}$"
                             f" $E{{=}}{r['E']}$" + (" causal" if r["causal"] == "1" else "")
                             + "}" for r in staged) + " \\\\",
           "".join(" & ms & share & of peak" for _ in staged) + " \\\\ \\midrule"]
    for key, label, kind, count in BACKWARD_STAGES:
        cells = ""
        for r in staged:
            ms, rate = float(r[key]), stage_peak(r, [(key, label, kind, count)],
                                                 ("proj", "core"), peaks)
            share = f"{100 * rate:.0f}\\%" if rate else ""
            cells += f" & {ms:.1f} & {round(100 * ms / float(r['ms']))}\\% & {share}"
        out.append(("\\midrule " if key == "outside_ms" else "") + label + cells + " \\\\")
    out.append("\\bottomrule\\end{tabular}")
    return "\n".join(out) + "\n"
def read(path):
    rows = []
    with open(path) as lines:
        for line in lines:
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if fields:
                rows.append(fields)
    return rows


def best(rows, **want):
    """The fastest row whose fields match want (None if there is none); a row of
    stages only when want asks for one."""
    hits = [r for r in rows if all(r.get(k) == str(v) for k, v in want.items()) and "ms" in r
            and (r.get("part") != "stages" or want.get("part") == "stages")]
    return min(hits, key=lambda r: float(r["ms"])) if hits else None
def forward_table(rows, peaks):
    out = ["\\begin{tabular}{llrrrrr}\\toprule",
           "shape & version & threads & ms & GFLOP/s & of peak & vs PyTorch \\\\ \\midrule"]
    shapes = []
    for r in rows:
        key = (r.get("B"), r.get("L"), r.get("E"), r.get("H"), r.get("causal"))
        if "decode" not in r and "L" in r and key not in shapes and r.get("part") != "stages":
            shapes.append(key)
    for B, L, E, H, causal in shapes:
        same = dict(B=B, L=L, E=E, H=H, causal=causal)
        torch = best(rows, impl="torch", **same)
        onnx = best(rows, impl="onnxruntime", part="attention", **same)
        label = (f"$B{{=}}{B}$ $L{{=}}{L}$ $E{{=}}{E}$ $H{{=}}{H}$"
                 + (" causal" if causal == "1" else ""))
        for r in rows:
            if "decode" in r or any(r.get(k) != v for k, v in same.items()) \
                    or r.get("part") == "stages":
                continue
            version = ("ORT " + r.get("version", "") if r["impl"] == "onnxruntime" else r["impl"]) \
                + (f" {r['isa']}" if r["impl"] == "blocked" else "") \
                + ("" if r.get("part", "all") == "all" else
                   f" ({r['part']} only" + (", half $k_c$" if "half_kc" in r else "") + ")")
            peak = peaks.get(r.get("threads"))
            share = f"{100 * float(r['gflops']) / peak:.0f}\\%" if peak else "--"
            speedup = (f"{float(torch['ms']) / float(r['ms']):.1f}$\\times$"
                       if torch and r.get("part", "all") == "all" else
                       f"{float(onnx['ms']) / float(r['ms']):.1f}$\\times^\\ast$"
                       if onnx and r.get("part") == "attention" and r["impl"] != "onnxruntime" else "--")
            out.append(f"{label} & {version} & {r['threads']} & {float(r['ms']):.1f} & "
                       f"{float(r['gflops']):.1f} & {share} & {speedup} \\\\")
            label = ""
        out.append("\\midrule")
    out[-1] = "\\bottomrule\\end{tabular}"
    if any(r.get("impl") == "onnxruntime" for r in rows):
        out.append("\\\\[1ex]\\parbox{0.9\\textwidth}{\\footnotesize $^\\ast$ Speed-up of the "
                   "attention core over ONNX Runtime's (ORT) MultiHeadAttention operator at "
                   "its better thread count.}")
    return "\n".join(out) + "\n"
def steps_table(rows):
    shape = dict(B=8, L=512, E=512, H=8, causal=0)
    steps = [("batched (Chapter~\\ref{ch:batched})", dict(impl="batched", threads=1)),
             ("packed, blocked, fused; plain C", dict(impl="blocked", isa="scalar", threads=1)),
             ("\\dots{} with AVX2 kernels", dict(impl="blocked", isa="avx2", threads=1)),
             ("\\dots{} with AVX-512 kernels", dict(impl="blocked", isa="avx512", threads=1)),
             ("\\dots{} on two threads", dict(impl="blocked", isa="avx512", threads=2))]
    out = ["\\begin{tabular}{lrrr}\\toprule",
           "step & ms & GFLOP/s & gain \\\\ \\midrule"]
    before = None
    for label, want in steps:
        r = best(rows, part="all", **shape, **want)
        if r is None:
            continue
        gain = f"{float(before['ms']) / float(r['ms']):.1f}$\\times$" if before else "--"
        out.append(f"{label} & {float(r['ms']):.1f} & {float(r['gflops']):.1f} & {gain} \\\\")
        before = r
    out.append("\\bottomrule\\end{tabular}")
    return "\n".join(out) + "\n"
def decode_share(r, bandwidth):
    """A decoding row's read rate in percent of the bandwidth on its threads, or None."""
    bw = bandwidth.get(r["threads"]) if r and "bytes" in r else None
    return 100 * float(r["bytes"]) / float(r["ms"]) / 1e6 / bw if bw else None


def fits_in_l3(r, l3_bytes):
    """Whether the bytes a step reads fit in a last level of a known size."""
    return 0 < float(r["bytes"]) <= l3_bytes


def share_text(share, r, l3_bytes, label):
    """A share as printed: above 100% only if the step fits in the L3, else label."""
    return "--" if share is None else label if share > 100 and not fits_in_l3(r, l3_bytes) \
        else f"{share:.0f}\\%"


def near_cache_length(rows, l3_bytes):
    """The shortest T of a blocked multi-head step reading >= 2 l3_bytes, or None."""
    long_enough = sorted(int(r["T"]) for r in rows if r.get("decode") == "1"
                         and r.get("impl") == "blocked" and r.get("kv_heads") == "12"
                         and 2 * l3_bytes <= float(r.get("bytes", 0)) and l3_bytes > 0)
    return long_enough[0] if long_enough else None


def merge_rounds(rows):
    """Rows measured in rounds become one row each: the median time, with its spread."""
    plain = [r for r in rows if "round" not in r]
    groups = {}
    for r in rows:
        if "round" in r and "ms" in r:
            key = tuple(sorted((k, v) for k, v in r.items()
                               if k not in ("round", "ms", "gbs", "gflops", "maxdiff")))
            groups.setdefault(key, []).append(r)
    for group in groups.values():
        times = sorted(float(r["ms"]) for r in group)
        merged = dict(group[0])
        del merged["round"]
        merged.update(ms=f"{statistics.median(times):.4f}", ms_min=f"{times[0]:.4f}",
                      ms_max=f"{times[-1]:.4f}", rounds=str(len(times)))
        plain.append(merged)
    return plain
def yardstick(rows):
    """The bandwidth measured in the rounds: threads -> (median, least, greatest, check)."""
    out = {}
    for t in {r["threads"] for r in rows if "round" in r and "bandwidth_gbs" in r}:
        ours = sorted(float(r["bandwidth_gbs"]) for r in rows
                      if "round" in r and r["threads"] == t and "bandwidth_gbs" in r)
        check = [float(r["check_bandwidth_gbs"]) for r in rows
                 if "round" in r and r["threads"] == t and "check_bandwidth_gbs" in r]
        out[t] = (statistics.median(ours), ours[0], ours[-1],
                  statistics.median(check) if check else None)
    return out
def first_decode_table(rows, bandwidth):
    """The KV-cache chapter's table: its own two versions, one thread, T = 4096."""
    dec = [r for r in rows if r.get("decode") == "1" and r["T"] == "4096" and
           r["kv_heads"] == "12" and r["threads"] == "1" and r["impl"] in ("naive", "batched")]
    out = ["\\begin{tabular}{lrrrr}\\toprule",
           "version & ms & tokens/s & GB/s & of bandwidth \\\\ \\midrule"]
    for r in sorted(dec, key=lambda r: r["impl"] != "naive"):
        gbs = float(r["bytes"]) / float(r["ms"]) / 1e6 if "bytes" in r else 0
        share = decode_share(r, bandwidth)
        out.append(f"{r['impl']} & {float(r['ms']):.2f} & {1000 / float(r['ms']):.0f} & "
                   f"{gbs:.1f} & " + ("--" if share is None else f"{share:.0f}\\%") + " \\\\")
    out.append("\\bottomrule\\end{tabular}")
    return "\n".join(out) + "\n"
def decode_table(rows, bandwidth, rounds=None, l3_mib=0):
    rounds = rounds or {}
    dec = sorted((r for r in rows if r.get("decode") == "1"), key=lambda r: int(r["T"]))
    ort = any(r["impl"] == "onnxruntime" for r in dec)
    out = ["{\\setlength{\\tabcolsep}{3.5pt}\\begin{tabular}{rrlrrrrr" + "r" * ort + "}\\toprule",
           "$T$ & $H_{kv}$ & version & threads & ms & GB/s & of bandwidth & vs PyTorch "
           + "& vs ORT$^\\ast$ " * ort + "\\\\ \\midrule"]
    for r in dec:
        torch = best(dec, impl="torch", T=r["T"], kv_heads=r["kv_heads"])
        peer = best(dec, impl="onnxruntime", T=r["T"], kv_heads=r["kv_heads"])
        versus = "" if not ort else " & --" if not peer or r["impl"] == "onnxruntime" else \
            f" & {float(peer['ms']) / float(r['ms']):.1f}$\\times$"
        version = "ORT" if r["impl"] == "onnxruntime" else r["impl"]   # its version: below
        gbs = float(r["bytes"]) / float(r["ms"]) / 1e6 if "bytes" in r else 0
        yard = dict(bandwidth, **{t: v[0] for t, v in rounds.items()}) if "rounds" in r \
            else bandwidth
        out.append(f"{r['T']} & {r['kv_heads']} & {version} & {r['threads']} & "
                   f"{float(r['ms']):.2f} & {gbs:.1f} & "
                   + share_text(decode_share(r, yard), r, l3_mib * 2**20, "unsteady") + " & "
                   + (f"{float(torch['ms']) / float(r['ms']):.1f}$\\times$" if torch else "--")
                   + versus + " \\\\")
    out.append("\\bottomrule\\end{tabular}}")
    if ort:
        version = next(r.get("version", "?") for r in dec if r["impl"] == "onnxruntime")
        out.append("\\\\[1ex]\\parbox{0.9\\textwidth}{\\footnotesize $^\\ast$ ONNX Runtime's "
                   f"(ORT, version {version}) MultiHeadAttention operator at its better thread "
                   "count, on the cache alone: its step has no projections.}")
    for t, (median, low, high, check) in sorted(rounds.items()):
        n = max((int(r["rounds"]) for r in dec if "rounds" in r), default=0)
        who = "one thread" if t == "1" else f"{t} threads"
        out.append(f"\\\\[1ex]\\parbox{{0.9\\textwidth}}{{\\footnotesize Rows on {who}: "
                   f"medians of {n} rounds, each measuring the read bandwidth first: "
                   f"{median:.1f}\\,GB/s (least {low:.1f}, greatest {high:.1f})"
                   + (f"; the independent program read {check:.1f}\\,GB/s in the same rounds"
                      if check else "") + ".}")
    return "\n".join(out) + "\n"
def roofline(rows, peak, bandwidth):
    marks = {"naive": "x", "batched": "+", "blocked": "*", "torch": "o", "openblas": "square"}
    lines = ["\\documentclass{standalone}", "\\usepackage{pgfplots}",
             "\\pgfplotsset{compat=1.18}", "\\begin{document}", "\\begin{tikzpicture}",
             "\\begin{loglogaxis}[width=12cm, height=7.5cm, xlabel={operations per byte},",
             "  ylabel={GFLOP/s}, xmin=0.1, xmax=4000, ymin=0.3, ymax=600,",
             "  legend pos=outer north east, legend cell align=left, grid=major]",
             f"\\addplot[thick, domain=0.1:4000, samples=200] {{min({peak}, {bandwidth}*x)}};",
             f"\\addlegendentry{{roof: {peak:.0f} GFLOP/s, {bandwidth:.0f} GB/s}}"]
    for impl, mark in marks.items():
        pts = [r for r in rows if r.get("impl") == impl
               and (r.get("threads") == "2" or impl in ("naive", "batched"))
               and r.get("part", "all") == "all" and "bytes" in r and "gflops" in r]
        if pts:
            coords = " ".join(f"({intensity(r):.4g},{float(r['gflops']):.4g})" for r in pts)
            lines += [f"\\addplot[only marks, mark={mark}, mark size=2.5pt] "
                      f"coordinates {{{coords}}};",
                      f"\\addlegendentry{{{impl}}}"]
    lines += ["\\end{loglogaxis}", "\\end{tikzpicture}", "\\end{document}"]
    return "\n".join(lines) + "\n"


def intensity(r):
    return float(r["gflops"]) * float(r["ms"]) * 1e6 / float(r["bytes"])
def share_bytes(rows):
    for r in rows:
        if "bytes" in r:
            continue
        for o in rows:
            if "bytes" in o and all(o.get(k) == r.get(k)
                                    for k in ("B", "L", "E", "H", "T", "kv_heads", "decode")):
                r["bytes"] = o["bytes"]
                break
        twin = next((o for o in rows if "bytes" in r and o.get("bytes") == r["bytes"]
                     and "gflops" in o), None)   # ours, reading what the peer's row reads
        if "gflops" not in r and "ms" in r and twin:
            r["gflops"] = str(float(twin["gflops"]) * float(twin["ms"]) / float(r["ms"]))
def core_one_thread_sentence(ours, peer, peaks):
    """The attention core against ONNX Runtime's operator on one thread, or nothing."""
    if not ours or not peer or "1" not in peaks:
        return ""
    def share(r):
        return f"{100 * float(r['gflops']) / peaks['1']:.0f}\\%"
    ratio = float(peer["ms"]) / float(ours["ms"])
    faster = (f"the core is {ratio:.2f} times as fast" if ratio >= 1 else
              f"the operator is {1 / ratio:.2f} times as fast")
    return (f"On one thread the core runs at {share(ours)} of one thread's peak and the "
            f"operator at {share(peer)}: {faster}.")

def one_thread_sentence(one, many, bandwidth, of_bandwidth):
    """The decoding step's shortfall split between one stream and the added threads."""
    if not one or not many or "1" not in bandwidth or many["threads"] not in bandwidth:
        return ""
    s1, s2 = decode_share(one, bandwidth), decode_share(many, bandwidth)
    if s1 is None or s2 is None or s1 > 100 or s2 > 100:
        return ""
    n = many["threads"]
    if n == "1":
        return ""
    step = float(one["ms"]) / float(many["ms"])
    loop = bandwidth[n] / bandwidth["1"]
    others = "the second thread adds" if n == "2" else "the other threads add"
    many_words = {"2": "two threads"}.get(n, f"{n} threads")
    larger = (f"most of it lies in what {others}, not in one thread's stream"
              if s1 - s2 > 100 - s1 else "most of it lies already in one thread's stream")
    return (f"On one thread the same step reads at {of_bandwidth(one)} of the bandwidth one "
            f"thread reads beside it, and {many_words} make it {step:.1f} times as fast, "
            f"where they make a loop that only reads {loop:.1f} times as fast: of the step's "
            f"shortfall on {many_words}, {larger}.")

def numbers(rows, peaks, bandwidth, machine):
    def ratio(a, b):
        return f"{float(a['ms']) / float(b['ms']):.1f}" if a and b else "--"
    big, batch = dict(B=1, L=2048, E=768, H=12), dict(B=8, L=512, causal=0)
    full = [r for r in rows if "half_kc" not in r]
    blocked = {c: best(full, impl="blocked", part="all", causal=c, isa="avx512", **big)
               for c in (0, 1)}
    two = best(full, impl="blocked", part="all", causal=0, threads=2, **big)
    torch = {c: best(rows, impl="torch", causal=c, **big) for c in (0, 1)}
    proj = best(full, impl="blocked", part="proj", causal=0, **big)
    half = best(rows, impl="blocked", part="proj", half_kc=1, **big)
    blas = best(rows, impl="openblas", part="proj", causal=0, **big)
    attn = best(rows, impl="blocked", part="attention", causal=0, **big)
    within = best(rows, impl="blocked", part="stages", causal=0, **big)
    within_gflops = (stage_peak(within, FORWARD_STAGES, ("pack", "proj"), peaks) or 0) \
        * peaks.get(within["threads"], 0) if within else 0
    mine = best(rows, impl="blocked", decode=1, T=4096, kv_heads=12)
    names = ("kc", "mc", "bq", "bk", "l1", "l2")
    sizes = next((dict((k, r[k]) for k in names) for r in rows if "kc" in r),
                 dict.fromkeys(names, "--"))
    m = {"FastMachine": machine,
         "FastPeak": f"{peaks.get('2', 0):.0f}", "FastPeakOne": f"{peaks.get('1', 0):.0f}",
         "FastBandwidth": f"{bandwidth.get('2', 0):.1f}",
         "FastDenseSpeedup": ratio(torch[0], blocked[0]),
         "FastCausalSpeedup": ratio(torch[1], blocked[1]),
         "FastBatchSpeedup": ratio(best(rows, impl="torch", **batch),
                                   best(full, impl="blocked", part="all", isa="avx512", **batch)),
         "FastCausalSkip": ratio(two, blocked[1]),
         "FastProjVsBlas": f"{100 * within_gflops / float(blas['gflops']):.0f}" if blas else "--",
         "FastBlasPeak": f"{100 * float(blas['gflops']) / peaks[blas['threads']]:.0f}"
                         if blas and blas["threads"] in peaks else "--",
         "FastProjGflops": f"{within_gflops:.2f}",
         "FastProjHalfKc": half["gflops"] if half else "--",
         "FastHalfKc": str(int(sizes["kc"]) // 32 * 16) if sizes["kc"] != "--" else "--",
         "FastDenormalSlowdown": next((f"{float(r['slowdown']):.0f}" for r in rows
                                       if "slowdown" in r), "--"),
         "FastNestedSlowdown": ratio(best(rows, impl="openblas-nested", causal=0, **big),
                                     best(rows, impl="openblas", part="all", causal=0, **big)),
         "FastNestedSlowdownBatch": ratio(best(rows, impl="openblas-nested", **batch),
                                          best(rows, impl="openblas", part="all", **batch))}
    for name, r in (("FastAttentionPeak", attn),
                    ("FastOrtAttentionPeak", best(rows, impl="onnxruntime", part="attention",
                                                  causal=0, **big))):
        if r and r["threads"] in peaks:
            m[name] = f"{100 * float(r['gflops']) / peaks[r['threads']]:.0f}"
    m["FastCoreOneSentence"] = core_one_thread_sentence(
        *(best(rows, impl=i, part="attention", causal=0, threads="1", **big)
          for i in ("blocked", "onnxruntime")), peaks)
    m["FastDecodeSpeedup"] = ratio(best(rows, impl="torch", decode=1, T=4096), mine)
    def of_bandwidth(r):
        """A decoding row's share of the bandwidth, as the prose quotes it."""
        return share_text(decode_share(r, bandwidth), r, l3_bytes, "an unsteady share")
    threads = max(peaks, default="1")
    l3_bytes = float(next((r["l3_mib"] for r in rows if "l3_mib" in r), 0)) * 2**20
    near = near_cache_length(rows, l3_bytes)
    m["FastDecodeNearT"] = str(near) if near else "--"
    m["FastDecodeBandwidth"] = of_bandwidth(near and best(rows, impl="blocked", decode=1, T=near,
                                                          kv_heads="12", threads=threads))
    far = {}
    for name, kv in (("FastDecodeFar", "12"), ("FastDecodeFarGqa", "3")):
        longest = max((int(r["T"]) for r in rows if r.get("decode") == "1"
                       and r.get("impl") == "blocked" and r.get("kv_heads") == kv), default=0)
        m[name + "T"] = str(longest)
        far[kv] = best(rows, impl="blocked", decode=1, T=longest, kv_heads=kv, threads=threads)
        m[name] = of_bandwidth(far[kv])
    same = m["FastDecodeNearT"] == m["FastDecodeFarT"]           # the nearest is also the longest
    m["FastDecodeFarWhere"] = "At that length, the longest cache measured" if same else \
        f"At {m['FastDecodeFarT']} positions, the longest cache measured"
    m["FastDecodeFarClause"] = "" if same else \
        f", and at {m['FastDecodeFarT']} positions at {m['FastDecodeFar']}"
    l3_mib = l3_bytes / 2**20
    small_mib = float(mine["bytes"]) / 2**20 if mine else 0
    cache_mib, l3_text = f"{small_mib:.0f}\\,MiB", f"{l3_mib:.0f}\\,MiB"
    if not mine or l3_bytes <= 0:
        small = ""
    elif fits_in_l3(mine, l3_bytes):
        small = (f"; its cache of {cache_mib} then fits in the last-level cache of {l3_text}, "
                 "so its rate is not a rate of reading from memory")
    else:
        small = f"; its cache of {cache_mib} is already larger than the last-level cache of {l3_text}"
    if near:
        nearest = (f"At {near} positions, the shortest cache measured of at least twice the last "
                   f"level's size, it reads at {m['FastDecodeBandwidth']} of the bandwidth "
                   "measured beside it.")
        roof = (f"at {near} positions the faster of its thread counts reads at "
                f"{m['FastDecodeBandwidth']} of the bandwidth measured on as many threads"
                f"{m['FastDecodeFarClause']}")
    else:
        where = "whose size is not known here" if l3_bytes <= 0 else f"{l3_text} here"
        nearest = f"No cache measured is twice the size of the last level, {where}."
        roof = (f"at {m['FastDecodeFarT']} positions, the longest cache measured, the faster of its "
                f"thread counts reads at {m['FastDecodeFar']} of the bandwidth measured on as many "
                "threads")
    m["FastDecodeSmallClause"], m["FastDecodeNearSentence"] = small, nearest
    m["FastDecodeRoofSentence"] = roof
    for name, key, scale, digits in (("Time", "ms", 1, 2), ("Bytes", "bytes", 100, 0)):
        both = far["3"] and far["12"]
        m["FastDecodeGqa" + name] = "--" if not both else \
            f"{scale * float(far['3'][key]) / float(far['12'][key]):.{digits}f}"
    m["FastDecodeOneSentence"] = one_thread_sentence(
        best(rows, impl="blocked", decode=1, T=m["FastDecodeFarT"], kv_heads="12", threads="1"),
        far["12"], bandwidth, of_bandwidth)
    m["FastLThree"] = next((r["l3_mib"] for r in rows if "l3_mib" in r), "--")
    if blocked[0] and torch[0]:
        m["FastTotalMs"], m["FastTotalThreads"] = f"{float(blocked[0]['ms']):.0f}", blocked[0]["threads"]
        m["FastTorchDenseMs"] = f"{float(torch[0]['ms']):.0f}"
        if "2" in peaks:
            work = float(blocked[0]["gflops"]) * float(blocked[0]["ms"])    # GFLOP * ms
            m["FastFloorMs"] = f"{work / peaks['2']:.0f}"
    steps = [best(full, impl="blocked", part="all", B=8, L=512, E=512, H=8, causal=0, **w)
             for w in (dict(isa="scalar", threads=1), dict(isa="avx2", threads=1),
                       dict(isa="avx512", threads=1), dict(isa="avx512", threads=2))]
    for name, earlier, later in zip(("FastGainAvxTwo", "FastGainAvxFive", "FastGainThreads"),
                                    steps, steps[1:]):
        m[name] = ratio(earlier, later)
    m["FastProjMs"] = f"{float(proj['ms']):.0f}" if proj else "--"
    m["FastAttentionMs"] = f"{float(attn['ms']):.0f}" if attn else "--"
    m.update(("Fast" + {"l1": "LOne", "l2": "LTwo"}.get(k, k.capitalize()), v)
             for k, v in sizes.items())
    for name in ("FastAttentionPeak", "FastOrtAttentionPeak", "FastDecodeBandwidth", "FastTotalMs",
                 "FastTotalThreads",
                 "FastTorchDenseMs", "FastFloorMs"):
        m.setdefault(name, "--")
    words = {"1": "one thread", "2": "two threads"}
    m["FastTotalThreadsWords"] = words.get(m["FastTotalThreads"], f"{m['FastTotalThreads']} threads")
    slow = next((float(r["slowdown"]) for r in rows if "slowdown" in r), None)
    m["FastDenormalEffect"] = ("--" if slow is None else
                               f"made it {slow:.0f} times as slow" if slow >= 1.5 else
                               f"changed its time by a factor of only {slow:.2f}")
    diffs = [float(r["maxdiff"]) for r in rows if r.get("impl") == "batched" and "maxdiff" in r]
    m["FastBatchedMaxDiff"] = f"{max(diffs):.2g}" if diffs else "--"
    apart = [float(r["ms"]) for r in (proj, attn, two) if r]
    m["FastProjApart"] = "" if len(apart) < 3 or apart[0] + apart[1] <= apart[2] else (
        f"Timed apart, in passes of their own, the projections took {apart[0]:.0f}\\,ms and "
        f"the core {apart[1]:.0f}, more than the whole pass took, {apart[2]:.0f}\\,ms.")
    return "".join(f"\\newcommand{{\\{k}}}{{{v}}}\n" for k, v in m.items())
def cache_knee(rows, above=1.5):
    """The last-level cache in MiB as a read sweep shows it (sweep_gbs= lines), or None."""
    rates = {}
    for r in rows:
        if "sweep_gbs" in r:
            rates.setdefault(int(r["mib"]), []).append(float(r["sweep_gbs"]))
    sizes = sorted(rates)
    if len(sizes) < 2:
        return None
    floor = statistics.median(rates[sizes[-1]])
    knee = None
    for mib in sizes[:-1]:
        if statistics.median(rates[mib]) < above * floor:
            break
        knee = mib
    return knee
def main(path, outdir, machine):
    machine = re.sub(r"; load average [^;]* when the run began", "", machine)
    measured = read(path)
    rounds, rows = yardstick(measured), merge_rounds(measured)
    l3_mib = next((int(r["l3_mib"]) for r in rows if "l3_mib" in r), 0)
    peaks = {r["threads"]: float(r["peak_gflops"]) for r in rows if "peak_gflops" in r}
    bandwidth = {r["threads"]: float(r["bandwidth_gbs"]) for r in rows if "bandwidth_gbs" in r}
    bandwidth.update((t, v[0]) for t, v in rounds.items())
    share_bytes(rows)
    files = {"bench-fast.tex": forward_table(rows, peaks),
             "bench-decode.tex": decode_table(rows, bandwidth, rounds, l3_mib),
             "bench-decode-first.tex": first_decode_table(rows, bandwidth),
             "bench-steps.tex": steps_table(rows),
             "roofline.tex": roofline(rows, peaks.get("2", 100), bandwidth.get("2", 10)),
             "bench-numbers.tex": numbers(rows, peaks, bandwidth, machine),
             **learning_files(path.replace("bench-fast.txt", "bench-learning.txt"), peaks)}
    files["bench-stages.tex"] = stages_table(rows, peaks)
    for prefix, causal, want in (("FastBatch", 0, dict(B=8, L=512)), ("FastLong", 0, dict(B=1, L=2048)),
                                 ("FastLongCausal", 1, dict(B=1, L=2048)),
                                 ("FastWideCausal", 1, dict(B=4, L=1024))):
        r = best(rows, part="stages", causal=causal, **want)
        useful = useful_flops(r["B"], r["L"], r["S"], r["E"], causal == 1) if r else 0
        files["bench-numbers.tex"] += "".join(f"\\newcommand{{\\{k}}}{{{v}}}\n" for k, v in
                                              gap_numbers(prefix, r, FORWARD_STAGES, useful,
                                                          peaks).items())
    causal_staged = [best(rows, part="stages", causal=1, B=B, L=L) for B, L in ((1, 2048), (4, 1024))]
    causal_measured = int(all(causal_staged))
    files["bench-numbers.tex"] += f"\\newcommand{{\\FastCausalStagesMeasured}}{{{causal_measured}}}\n"
    small = next((r for r in rows if r.get("part") == "stages" and r.get("B") == "8"), None)
    share = (lambda key: f"{100 * float(small[key]) / float(small['ms']):.0f}") if small \
        else (lambda key: "--")
    fresh = f"{100 * (float(small['fresh_ms']) / float(small['ms']) - 1):.0f}" if small else "--"
    files["bench-numbers.tex"] += "".join(
        f"\\newcommand{{\\{k}}}{{{v}}}\n" for k, v in
        {"FastOutsideShare": share("outside_ms"), "FastAttentionShare": share("attention_ms"),
         "FastFreshCost": fresh}.items())
    for name in ("bench-fast.tex", "bench-decode.tex", "bench-decode-first.tex",
                 "bench-steps.tex", "bench-stages.tex",
                 "bench-backward.tex", "bench-backward-stages.tex", "bench-training.tex"):
        if name in files:
            files[name] = files[name].rstrip("\n") + "\\\\[1ex]\n" \
                + "\\parbox{0.9\\textwidth}{\\footnotesize Measured on the machine of \\setupboxref.}\n"
    files["bench-numbers.tex"] += "".join(f"\\newcommand{{\\{k}}}{{{v}}}\n"
                                          for k, v in setup_macros(rows, machine).items())
    for name, text in files.items():
        with open(f"{outdir}/{name}", "w") as f:
            f.write(text)
def stages_table(rows, peaks):
    """One tabular for the dense shapes, then one for the causal ones (if timed)."""
    staged = [r for r in rows if r.get("part") == "stages" and r.get("backward") != "1"]
    groups = [g for g in ([r for r in staged if r["causal"] == c] for c in ("0", "1")) if g]
    return "\\\\[1ex]\n".join(stages_block(g, peaks) for g in groups or [[]])


def stages_block(staged, peaks):
    names = [("ms", "whole pass", None, 0), ("fresh_ms", "\\dots{} with fresh scratch", None, 0)]
    out = ["\\begin{tabular}{l" + "rrr" * len(staged) + "}\\toprule",
           "stage" + "".join(f" & \\multicolumn{{3}}{{c}}{{$B{{=}}{r['B']}$ $L{{=}}{r['L']}$"
                             f" $E{{=}}{r['E']}$" + (" causal" if r["causal"] == "1" else "")
                             + "}" for r in staged) + " \\\\",
           "".join(" & ms & share & of peak" for _ in staged) + " \\\\ \\midrule"]
    for stage in names + FORWARD_STAGES:
        key, label = stage[:2]
        cells = ""
        for r in staged:
            rate = stage_peak(r, [stage], ("proj", "core"), peaks)
            cells += (f" & {float(r[key]):.1f} & {100 * float(r[key]) / float(r['ms']):.0f}\\%"
                      + (f" & {100 * rate:.0f}\\%" if rate else " & "))
        out.append(label + cells + " \\\\")
    out.append("\\bottomrule\\end{tabular}")
    return "\n".join(out) + "\n"
def setup_macros(rows, machine):
    """The setup box's parts: the machine line taken apart, the ISA, the peers."""
    cpu, cores = (re.match(r"(.*), (\d+) cores,", machine) or re.match("(.*)()", machine)).groups()
    day, compiler = (re.search(r"; (\d{4}-\d\d-\d\d), (.*)$", machine) or
                     re.match("()()", "")).groups()
    kernels = (re.search(r"OpenBLAS's (.*) kernels", machine) or re.match("()", "")).group(1)
    isa = next((r["isa"] for r in rows if "peak_gflops" in r and "isa" in r), "--")
    def threads(impl):
        n = sorted({int(r["threads"]) for r in rows if r.get("impl") == impl and "threads" in r})
        return " and ".join(map(str, n)) + (" thread" if n == [1] else " threads")
    ort = next((r["version"] for r in rows if r.get("impl") == "onnxruntime" and "version" in r), "?")
    versions = next((r for r in rows if "peers" in r), {})
    blas = sorted({r["blas_threads"] for r in rows
                   if r.get("impl") == "torch" and r.get("blas_threads", "--") != "--"})
    inside = f" (its products in OpenBLAS on {' and '.join(blas)})" if blas else ""
    peers = [f"PyTorch {versions.get('torch', '?')} on {threads('torch')}{inside}",
             f"ONNX Runtime {ort} on {threads('onnxruntime')}",
             f"OpenBLAS {versions.get('openblas', '?')} ({kernels} kernels) on {threads('openblas')}"]
    return {"SetupCpu": cpu, "SetupCores": cores, "SetupDay": day, "SetupCompiler": compiler,
            "SetupIsa": {"avx512": "AVX-512", "avx2": "AVX2"}.get(isa, "plain C"),
            "SetupPeers": "; ".join(peers), "SetupBlasRace": blas_race(rows)}

def blas_race(rows):
    """The race of OpenBLAS's kernels: each candidate's median time of a projection."""
    times = {}
    for r in rows:
        if "blas_core" in r and r.get("blas_ms"):
            times.setdefault(r["blas_core"], []).append(float(r["blas_ms"]))
    parts = [f"{statistics.median(t):.1f}\\,ms on "
             f"{'its own choice' if core == 'own' else core}" for core, t in times.items()]
    return "--" if not parts else \
        parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

def peer_version(name):
    """The installed version of PyTorch or OpenBLAS, the libraries the run timed."""
    try:
        if name == "torch":
            import importlib.metadata
            return importlib.metadata.version("torch").split("+")[0]
        import ctypes, ctypes.util
        blas = ctypes.CDLL(ctypes.util.find_library("openblas"))
        blas.openblas_get_config.restype = ctypes.c_char_p
        return blas.openblas_get_config().decode().split()[1]
    except Exception:
        return "?"

if __name__ == "__main__":
    if sys.argv[1:2] == ["--l3"]:
        print(cache_knee(read(sys.argv[2])) or "")
    elif sys.argv[1:2] == ["--versions"]:
        print(f"peers=1 torch={peer_version('torch')} openblas={peer_version('openblas')}")
    else:
        main(*sys.argv[1:])
