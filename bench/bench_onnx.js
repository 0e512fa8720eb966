/* generated from chapters/24-measuring.nw; edit the book, not this file */
// Time one MultiHeadAttention model with onnxruntime-node.
// usage: node bench_onnx.js DIR THREADS REPS
// DIR holds model.onnx, inputs.txt (each input's name and dimensions, a line each)
// and NAME.f32 for each input; output.f32 is written there.
const fs = require("fs");

async function main([dir, threads, reps]) {
    const ort = require("onnxruntime-node");
    const version = require("onnxruntime-node/package.json").version;
    [threads, reps] = [threads, reps].map(Number);
    const session = await ort.InferenceSession.create(`${dir}/model.onnx`, {
        intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
        graphOptimizationLevel: "all"});
    const feeds = {};
    for (const line of fs.readFileSync(`${dir}/inputs.txt`, "utf8").trim().split("\n")) {
        const [name, ...dims] = line.split(" ");
        const bytes = fs.readFileSync(`${dir}/${name}.f32`);
        const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
        feeds[name] = new ort.Tensor("float32", data, dims.map(Number));
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
    console.log(`ms=${ms.toFixed(4)} version=${version}`);
}

main(process.argv.slice(2)).catch(e => {
    console.error(`bench_onnx.js: ${e.message.split("\n")[0]}`);
    process.exit(1);
});
