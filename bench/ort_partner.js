// bench/ort_partner.js — ONNX Runtime side of bench/compare and bench/zoo_compare: times a model on the CPU execution
// provider with 2 intra-op threads and full graph optimization, one line per batch size in bench_resnet18's
// RESULT format (read by the compare scripts and scripts/results.py), with this process's peak RSS:
//   RESULT bench=inference impl=onnxruntime variant=<version> precision=fp32 batch=<N> median_ms=<ms> min_ms=<ms> max_ms=<ms> rss_mib=<MiB> model=<name> size=<S>
// The models <name>_b<N>.onnx are torchvision's, exported by bench/export_onnx.py into the working directory; a
// missing one is an error naming the command that writes it. The input size is the model file's (export_onnx.py's
// choice); --size S checks it.
//   NODE_PATH=<dir>/node_modules node bench/ort_partner.js [--model resnet18] [--size S] [--warmup N] [--runs N] [BATCH...]
// (defaults: resnet18, 10 warm-up runs, 20 timed runs, batches 1 5 10; the compare scripts pass their own --warmup
// and --runs)
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');


function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function timeBatch(model, expectedSize, batch, warmup, runs) {
  const file = `${model}_b${batch}.onnx`;
  if (!fs.existsSync(file))
    throw new Error(`no ${file} in ${process.cwd()}; write it with ` +
                    `/usr/bin/python3 bench/export_onnx.py ${process.cwd()} --model ${model} ${batch}`);
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionProviders: ['cpu'],
  });
  const shape = session.inputMetadata[0].shape;  // (N, 3, S, S), as export_onnx.py wrote it
  const size = shape[2];
  if (shape[0] !== batch || (expectedSize && size !== expectedSize))
    throw new Error(`${file} takes ${shape.join(' x ')} inputs, not ${batch} x 3 x ${expectedSize || size} x ` +
                    `${expectedSize || size}; write it again with bench/export_onnx.py`);
  const numel = batch * 3 * size * size;
  const data = new Float32Array(numel);
  for (let i = 0; i < numel; i++) data[i] = Math.random();
  const feeds = {x: new ort.Tensor('float32', data, [batch, 3, size, size])};
  for (let i = 0; i < warmup; i++) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const version = require('onnxruntime-node/package.json').version;
  const rssMiB = process.resourceUsage().maxRSS / 1024;  // kilobytes
  console.log(`RESULT bench=inference impl=onnxruntime variant=${version} precision=fp32 batch=${batch} ` +
              `median_ms=${median(ms).toFixed(2)} min_ms=${Math.min(...ms).toFixed(2)} max_ms=${Math.max(...ms).toFixed(2)} ` +
              `rss_mib=${rssMiB.toFixed(0)} model=${model} size=${size}`);
}

(async () => {
  const options = {model: 'resnet18', size: 0, warmup: 10, runs: 20};
  const batches = [];
  for (let i = 2; i < process.argv.length; i++) {
    const flag = process.argv[i].replace(/^--/, '');
    if (flag in options) options[flag] = flag === 'model' ? process.argv[++i] : Number(process.argv[++i]);
    else batches.push(Number(process.argv[i]));
  }
  if (!(options.warmup >= 0 && options.runs >= 1 && options.size >= 0) || !/^[a-z0-9_]+$/.test(options.model || '') ||
      batches.some((b) => !(b >= 1)))
    throw new Error('usage: [--model NAME] [--size S] [--warmup N] [--runs N] [BATCH...], got ' +
                    process.argv.slice(2).join(' '));
  for (const batch of batches.length ? batches : [1, 5, 10])
    await timeBatch(options.model, options.size, batch, options.warmup, options.runs);
})().catch((e) => {
  console.error(`ort_partner: ${e.message}`);
  process.exit(1);
});
