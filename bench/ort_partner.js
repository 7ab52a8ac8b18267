// bench/ort_partner.js — ONNX Runtime side of bench/compare: times ResNet18 on the CPU execution provider
// with 2 intra-op threads and full graph optimization, one line per batch size:
//   ORT <version> bs=<N> median <ms> ms <img/s> img/s
// The models rn18_b<N>.onnx are torchvision's ResNet18 exported by bench/export_onnx.py into the
// working directory.
//   NODE_PATH=<dir>/node_modules node bench/ort_partner.js [BATCH...]      (default 1 5 10)
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const kWarmup = 10;
const kRuns = 20;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function timeBatch(batch) {
  const file = `rn18_b${batch}.onnx`;
  if (!fs.existsSync(file)) {
    console.error(`ort_partner: no ${file} in ${process.cwd()} (bench/export_onnx.py writes it); batch ${batch} skipped`);
    return;
  }
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionProviders: ['cpu'],
  });
  const numel = batch * 3 * 224 * 224;
  const data = new Float32Array(numel);
  for (let i = 0; i < numel; i++) data[i] = Math.random();
  const feeds = {x: new ort.Tensor('float32', data, [batch, 3, 224, 224])};
  for (let i = 0; i < kWarmup; i++) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < kRuns; i++) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const m = median(ms);
  const version = require('onnxruntime-node/package.json').version;
  console.log(`ORT ${version} bs=${batch} median ${m.toFixed(2)} ms ${(batch / m * 1000).toFixed(1)} img/s`);
}

(async () => {
  const batches = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [1, 5, 10];
  for (const batch of batches) await timeBatch(batch);
})().catch((e) => {
  console.error(`ort_partner: ${e.message}`);
  process.exit(1);
});
