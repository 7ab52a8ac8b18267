// bench/ort_partner.js — ONNX Runtime side of bench/compare: times ResNet18 on the CPU execution provider
// with 2 intra-op threads and full graph optimization, one line per batch size in bench_resnet18's
// RESULT format (read by bench/compare and scripts/plot_results.py):
//   RESULT bench=inference impl=onnxruntime variant=<version> precision=fp32 batch=<N> median_ms=<ms> min_ms=<ms> max_ms=<ms>
// The models rn18_b<N>.onnx are torchvision's ResNet18 exported by bench/export_onnx.py into the
// working directory.
//   NODE_PATH=<dir>/node_modules node bench/ort_partner.js [--warmup N] [--runs N] [BATCH...]
// (defaults: 10 warm-up runs, 20 timed runs, batches 1 5 10; bench/compare passes its own --warmup and --runs)
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');


function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function timeBatch(batch, warmup, runs) {
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
  for (let i = 0; i < warmup; i++) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const version = require('onnxruntime-node/package.json').version;
  console.log(`RESULT bench=inference impl=onnxruntime variant=${version} precision=fp32 batch=${batch} ` +
              `median_ms=${median(ms).toFixed(2)} min_ms=${Math.min(...ms).toFixed(2)} max_ms=${Math.max(...ms).toFixed(2)}`);
}

(async () => {
  const options = {warmup: 10, runs: 20};
  const batches = [];
  for (let i = 2; i < process.argv.length; i++) {
    const flag = process.argv[i].replace(/^--/, '');
    if (flag in options) options[flag] = Number(process.argv[++i]);
    else batches.push(Number(process.argv[i]));
  }
  if (!(options.warmup >= 0 && options.runs >= 1) || batches.some((b) => !(b >= 1)))
    throw new Error(`usage: [--warmup N] [--runs N] [BATCH...], got ${process.argv.slice(2).join(' ')}`);
  for (const batch of batches.length ? batches : [1, 5, 10]) await timeBatch(batch, options.warmup, options.runs);
})().catch((e) => {
  console.error(`ort_partner: ${e.message}`);
  process.exit(1);
});
