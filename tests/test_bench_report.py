# generated from chapters/37-tests-fast.nw; edit the book, not this file
"""The decoding rule of figures/bench_report.py, on made-up measurements.
usage: python3 tests/test_bench_report.py  (from the top of the tree)"""
import importlib.util, os, re, sys, tempfile, unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(HERE, "..", "figures", "bench_report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

MIB = 2**20
def step(T, nbytes, ms, kv_heads=12):
    return (f"impl=blocked decode=1 B=1 E=768 H=12 kv_heads={kv_heads} T={T} reps=7 "
            f"ms={ms} threads=2 isa=avx512 bytes={nbytes}")


def run(lines, l3_mib=32):
    head = ["peak_gflops=100.0 threads=2 isa=avx512", "bandwidth_gbs=31.25 threads=2 mib=512"]
    head += [f"l3_mib={l3_mib}"] if l3_mib is not None else []
    with tempfile.TemporaryDirectory() as out:
        path = os.path.join(out, "bench-fast.txt")
        with open(path, "w") as f:
            f.write("\n".join(head + lines) + "\n")
        report.main(path, out, "a test machine")
        with open(os.path.join(out, "bench-numbers.tex")) as f:
            macros = dict(re.findall(r"\\newcommand\{\\(\w+)\}\{(.*)\}", f.read()))
        with open(os.path.join(out, "bench-decode.tex")) as f:
            table = [row.split(" & ") for row in f if re.match(r"\d+ & ", row)]
    return macros, {row[0]: row[6] for row in table}
# A 32 MiB L3 and 31.25 GB/s: 110 MB in 4 ms is 27.5 GB/s, 88%; 60 MB in 1.5 ms
# and 20 MB in 0.5 ms are 40 GB/s, 128%; twice the L3 is 67108864 bytes.
class DecodingRule(unittest.TestCase):
    def test_rate_is_quoted_at_the_shortest_cache_of_twice_the_last_level(self):
        macros, _ = run([step(4096, 34609152, 2.0), step(8192, 60000000, 3.0),
                         step(16384, 110000000, 4.0), step(65536, 440000000, 20.0)])
        self.assertEqual(macros["FastDecodeNearT"], "16384")
        self.assertEqual(macros["FastDecodeBandwidth"], "88\\%")

    def test_a_cache_of_exactly_twice_the_last_level_counts(self):
        macros, _ = run([step(8192, 60000000, 3.0), step(12288, 2 * 32 * MIB, 4.0),
                         step(16384, 110000000, 4.0)])
        self.assertEqual(macros["FastDecodeNearT"], "12288")

    def test_no_cache_large_enough_quotes_no_rate(self):
        for lines, l3 in (([step(4096, 34609152, 2.0), step(8192, 60000000, 3.0)], 32),
                          ([step(16384, 110000000, 4.0)], None)):
            macros, _ = run(lines, l3)
            self.assertEqual(macros["FastDecodeNearT"], "--")
            self.assertEqual(macros["FastDecodeBandwidth"], "--")

    def test_the_sentences_follow_the_size_of_the_last_level(self):
        lines = [step(4096, 34609152, 2.0), step(16384, 110000000, 4.0),
                 step(65536, 440000000, 20.0)]
        macros, _ = run(lines)                                  # 32 MiB: 33 MiB is beyond it
        self.assertEqual(macros["FastDecodeSmallClause"], "; its cache of 33\\,MiB is already "
                         "larger than the last-level cache of 32\\,MiB")
        self.assertEqual(macros["FastDecodeNearSentence"], "At 16384 positions, the shortest "
                         "cache measured of at least twice the last level's size, it reads at "
                         "88\\% of the bandwidth measured beside it.")
        macros, _ = run(lines, 260)                             # a server's last level
        self.assertEqual(macros["FastDecodeSmallClause"], "; its cache of 33\\,MiB then fits in "
                         "the last-level cache of 260\\,MiB, so its rate is not a rate of "
                         "reading from memory")
        self.assertEqual(macros["FastDecodeNearSentence"],
                         "No cache measured is twice the size of the last level, 260\\,MiB here.")
        self.assertEqual(macros["FastDecodeRoofSentence"], "at 65536 positions, the longest "
                         "cache measured, the faster of its thread counts reads at 70\\% of "
                         "the bandwidth measured on as many threads")
        macros, _ = run(lines, None)
        self.assertEqual(macros["FastDecodeSmallClause"], "")
        self.assertEqual(macros["FastDecodeNearSentence"], "No cache measured is twice the size "
                         "of the last level, whose size is not known here.")

    def test_the_longest_cache_is_named_once_when_it_is_also_the_nearest(self):
        macros, _ = run([step(4096, 34609152, 2.0), step(16384, 110000000, 4.0)])
        self.assertEqual(macros["FastDecodeFarWhere"],
                         "At that length, the longest cache measured")
        self.assertEqual(macros["FastDecodeFarClause"], "")
        macros, _ = run([step(16384, 110000000, 4.0), step(65536, 440000000, 20.0)])
        self.assertEqual(macros["FastDecodeFarWhere"],
                         "At 65536 positions, the longest cache measured")
        self.assertEqual(macros["FastDecodeFarClause"], ", and at 65536 positions at 70\\%")

    def test_the_race_of_openblas_kernels_quotes_each_median(self):
        race = [f"blas_core={core} blas_ms={ms}" for core, ms in
                (("own", 32.0), ("Haswell", 55.0), ("own", 30.0), ("Haswell", 54.0),
                 ("own", 31.0), ("Haswell", 90.0))]
        macros, _ = run([step(4096, 34609152, 2.0)] + race)
        self.assertEqual(macros["SetupBlasRace"],
                         "31.0\\,ms on its own choice and 55.0\\,ms on Haswell")
        macros, _ = run([step(4096, 34609152, 2.0)])
        self.assertEqual(macros["SetupBlasRace"], "--")

    def test_no_share_above_the_bandwidth_beyond_the_cache_without_its_label(self):
        macros, shares = run([step(4096, 20000000, 0.5), step(8192, 60000000, 1.5),
                              step(16384, 110000000, 2.0), step(65536, 440000000, 20.0)])
        self.assertEqual(shares["4096"], "128\\%")            # fits in 32 MiB: allowed
        self.assertEqual(shares["8192"], "unsteady")          # 60 MB: beyond it
        self.assertEqual(shares["16384"], "unsteady")
        self.assertEqual(macros["FastDecodeNearT"], "16384")
        self.assertEqual(macros["FastDecodeBandwidth"], "an unsteady share")
        _, shares = run([step(4096, 20000000, 0.5)], None)    # the cache's size unknown
        self.assertEqual(shares["4096"], "unsteady")
def stages(B, L, E, H, causal, ms, attention):
    return (f"impl=blocked B={B} L={L} S={L} E={E} H={H} causal={causal} reps=7 gflops=1 "
            f"maxdiff=1e-07 threads=2 part=stages isa=avx512 ms={ms} fresh_ms={ms} pack_ms=1 "
            f"proj_in_ms=5 attention_ms={attention} proj_out_ms=2 outside_ms={ms - 8 - attention}")


def ort(T, ms, threads=2):
    return (f"impl=onnxruntime decode=1 B=1 E=768 H=12 kv_heads=12 T={T} reps=15 ms={ms} "
            f"threads={threads} part=attention version=1.30.0 bytes={8 * T * 768 + 6144} "
            f"maxdiff=1e-07")


def decode_rows(lines):
    with tempfile.TemporaryDirectory() as out:
        path = os.path.join(out, "bench-fast.txt")
        with open(path, "w") as f:
            f.write("\n".join(["peak_gflops=100.0 threads=2 isa=avx512", "l3_mib=32"] + lines))
        report.main(path, out, "a test machine")
        with open(os.path.join(out, "bench-decode.tex")) as f:
            return [row.rstrip(" \\\n").split(" & ") for row in f if re.match(r"\d+ & ", row)]


class NewerParts(unittest.TestCase):
    def test_causal_stage_lines_count_half_the_scores(self):
        macros, _ = run([stages(1, 2048, 768, 12, 1, 200.0, 100.0),
                         stages(4, 1024, 1024, 16, 1, 300.0, 150.0)])
        self.assertEqual(macros["FastCausalStagesMeasured"], "1")
        self.assertEqual(macros["FastLongCausalGapMs"], "39")
        # the core: 4 E L(L+1)/2 = 6.45 GFLOP in 100 milliseconds, 64 of the peak's hundred
        self.assertEqual(macros["FastLongCausalCorePeak"], "64")
        self.assertNotEqual(macros["FastWideCausalGapMs"], "--")

    def test_without_causal_stage_lines_the_sentence_is_left_out(self):
        macros, _ = run([stages(1, 2048, 768, 12, 0, 40.0, 20.0)])
        self.assertEqual(macros["FastCausalStagesMeasured"], "0")
        self.assertEqual(macros["FastLongCausalGapMs"], "--")
        self.assertEqual(macros["FastLongCausalCorePeak"], "--")

    def test_the_one_thread_step_splits_the_decoding_shortfall(self):
        def rounds(one_ms):
            lines = []
            for r in (1, 2, 3):
                lines += [f"bandwidth_gbs=40 threads=2 mib=512 round={r}",
                          f"bandwidth_gbs=25 threads=1 mib=512 round={r}",
                          step(65536, 440000000, 20.0) + f" round={r}"]
                if one_ms:
                    lines.append(step(65536, 440000000, one_ms).replace("threads=2", "threads=1")
                                 + f" round={r}")
            return lines
        # two threads: 22 GB/s of 40, 55%; one: 20 GB/s of 25, 80%, and 1.1 times against 1.6
        macros, _ = run(rounds(22.0))
        self.assertEqual(macros["FastDecodeOneSentence"], "On one thread the same step reads at "
                         "80\\% of the bandwidth one thread reads beside it, and two threads make "
                         "it 1.1 times as fast, where they make a loop that only reads 1.6 times "
                         "as fast: of the step's shortfall on two threads, most of it lies in what "
                         "the second thread adds, not in one thread's stream.")
        macros, _ = run(rounds(35.2))                       # one thread at 50%: its own stream
        self.assertTrue(macros["FastDecodeOneSentence"].endswith(
            "most of it lies already in one thread's stream."))
        macros, _ = run(rounds(None))                       # not measured: no sentence
        self.assertEqual(macros["FastDecodeOneSentence"], "")
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "bench-fast.txt")
            with open(path, "w") as f:
                f.write("\n".join(["peak_gflops=100.0 threads=2 isa=avx512", "l3_mib=32"]
                                  + rounds(22.0)) + "\n")
            report.main(path, out, "a test machine")
            with open(os.path.join(out, "bench-decode.tex")) as f:
                text = f.read()
        self.assertIn("Rows on one thread: medians of 3 rounds", text)
        self.assertIn("Rows on 2 threads: medians of 3 rounds", text)
        self.assertNotIn("1 threads", text)

    def test_the_core_and_onnx_runtime_side_by_side_on_one_thread(self):
        shape = "B=1 L=2048 S=2048 E=768 H=12 causal=0 reps=7"
        ours = (f"impl=blocked {shape} ms=100 gflops=60 maxdiff=1e-07 threads=1 part=attention "
                "isa=avx512 bytes=22020096")
        peer = (f"impl=onnxruntime {shape} ms=120 gflops=50 threads=1 part=attention "
                "version=1.30.0 maxdiff=2.9e-07")
        one = "peak_gflops=100.0 threads=1 isa=avx512"
        macros, _ = run([one, ours, peer])
        self.assertEqual(macros["FastCoreOneSentence"], "On one thread the core runs at 60\\% "
                         "of one thread's peak and the operator at 50\\%: the core is 1.20 "
                         "times as fast.")
        macros, _ = run([one, ours.replace("ms=100", "ms=150"), peer])
        self.assertTrue(macros["FastCoreOneSentence"].endswith(
            "the operator is 1.25 times as fast."))
        macros, _ = run([one, peer])                             # ours not timed on one thread
        self.assertEqual(macros["FastCoreOneSentence"], "")

    def test_openblas_share_of_the_peak_is_its_own_rate_over_the_peak(self):
        blas = ("impl=openblas B=1 L=2048 S=2048 E=768 H=12 causal=0 reps=7 ms=138.0 "
                "gflops=70.00 maxdiff=0 threads=2 part=proj")
        macros, _ = run([blas])
        self.assertEqual(macros["FastBlasPeak"], "70")           # 70 of the peak's hundred
        macros, _ = run([blas.replace("threads=2", "threads=1")])  # no peak on one thread
        self.assertEqual(macros["FastBlasPeak"], "--")

    def test_onnx_runtime_decoding_rows_and_their_ratio(self):
        rows = decode_rows([step(4096, 34609152, 2.0), ort(4096, 3.0), ort(4096, 5.0, 1)])
        ours = next(r for r in rows if r[2] == "blocked")
        peer = [r for r in rows if r[2] == "ORT"]
        self.assertEqual(len(peer), 2)
        self.assertEqual(ours[-1], "1.5$\\times$")       # its better thread count, 3 ms
        self.assertEqual(peer[0][-1], "--")

    def test_without_onnx_runtime_no_column(self):
        rows = decode_rows([step(4096, 34609152, 2.0)])
        self.assertEqual(len(rows[0]), 8)

    def test_the_knee_is_the_last_size_clearly_above_memory(self):
        sweep = [f"sweep_gbs={g} threads=2 mib={mib}" for mib, gs in
                 ((4, (90, 95, 20)), (8, (90, 91, 92)), (16, (80, 85, 82)), (32, (40, 35, 36)),
                  (64, (31, 33, 30)), (128, (70, 30, 31)), (512, (30, 30, 29)))
                 for g in gs]
        rows = [dict(f.split("=") for f in line.split()) for line in sweep]
        self.assertEqual(report.cache_knee(rows), 16)          # 82 >= 1.5 x 30; 36 is not
        self.assertIsNone(report.cache_knee(rows[-3:]))        # one size: no knee
        flat = [dict(sweep_gbs="30", mib=str(m)) for m in (4, 8, 512)]
        self.assertIsNone(report.cache_knee(flat))


if __name__ == "__main__":
    unittest.main()
