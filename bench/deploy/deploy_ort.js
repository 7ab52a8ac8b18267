// bench/deploy/deploy_ort.js — examples/deploy's program on ONNX Runtime (onnxruntime-node, the runtime's
// own CPU build), the comparison partner of docs/deployment.md: an ONNX model with torchvision's
// preprocessing and ResNet18 (export.py) and one image, classified. Node has no PNG decoder, so the image is
// the same picture as a binary PPM (export.py writes it; reading it is a header and the bytes).
//   NODE_PATH=<dir>/node_modules node deploy_ort.js MODEL.onnx IMAGE.ppm   (run by bench/deploy/compare)
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

// A binary PPM (P6, maxval 255) as a (1, 3, H, W) Float32 tensor of RGB values in [0, 1].
function readPpm(path) {
  const bytes = fs.readFileSync(path);
  const header = bytes.toString('latin1', 0, 64).match(/^P6\s+(\d+)\s+(\d+)\s+255\s/);
  if (!header) throw new Error(`${path}: not a binary PPM with maxval 255`);
  const [w, h] = [Number(header[1]), Number(header[2])];
  const rgb = bytes.subarray(header[0].length);
  const chw = new Float32Array(3 * h * w);
  for (let c = 0; c < 3; c++) for (let i = 0; i < h * w; i++) chw[c * h * w + i] = rgb[i * 3 + c] / 255;
  return new ort.Tensor('float32', chw, [1, 3, h, w]);
}

async function main() {
  const [model, image] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionProviders: ['cpu'],
  });
  const logits = (await session.run({image: readPpm(image)})).logits.data;
  const max = Math.max(...logits);
  const total = logits.reduce((sum, v) => sum + Math.exp(v - max), 0);
  const best = [...logits.keys()].sort((a, b) => logits[b] - logits[a]).slice(0, 5);
  for (const i of best) {
    console.log(`class ${String(i).padStart(4)}  logit ${logits[i].toFixed(6).padStart(9)}  probability ${(Math.exp(logits[i] - max) / total).toFixed(6)}`);
  }
}

main().catch((e) => { console.error(e.message); process.exit(1); });
