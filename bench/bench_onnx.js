/* generated from chapters/24-measuring.nw; edit the book, not this file */
// Time one MultiHeadAttention model with onnxruntime-node.
// usage: node bench_onnx.js DIR THREADS REPS B L E H CAUSAL
// DIR holds model.onnx and query.f32, key.f32, value.f32; output.f32 is written there.
const fs = require("fs");

async function main([dir, threads, reps, B, L, E, H, causal]) {
    const ort = require("onnxruntime-node");
    const version = require("onnxruntime-node/package.json").version;
    [threads, reps, B, L, E, H, causal] = [threads, reps, B, L, E, H, causal].map(Number);
    const session = await ort.InferenceSession.create(`${dir}/model.onnx`, {
        intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
        graphOptimizationLevel: "all"});
    const feeds = {};
    for (const name of ["query", "key", "value"]) {
        const bytes = fs.readFileSync(`${dir}/${name}.f32`);
        const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
        feeds[name] = new ort.Tensor("float32", data, [B, L, E]);
    }
    const first = await session.run(feeds);                 // the warm-up, and the check
    fs.writeFileSync(`${dir}/output.f32`, Buffer.from(first.output.data.buffer,
        first.output.data.byteOffset, first.output.data.byteLength));
    const times = [];
    for (let r = 0; r < reps; r++) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    const ms = reps % 2 ? times[(reps - 1) / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    const pairs = causal ? L * (L + 1) / 2 : L * L;
    const gflops = 4 * B * pairs * E / (ms * 1e6);
    console.log(`impl=onnxruntime B=${B} L=${L} S=${L} E=${E} H=${H} causal=${causal} ` +
                `reps=${reps} ms=${ms.toFixed(3)} gflops=${gflops.toFixed(2)} ` +
                `threads=${threads} part=attention version=${version}`);
}

main(process.argv.slice(2)).catch(e => {
    console.error(`bench_onnx.js: ${e.message.split("\n")[0]}`);
    process.exit(1);
});
