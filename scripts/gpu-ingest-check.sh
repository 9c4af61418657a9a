#!/usr/bin/env bash
# GPU figure for docs/benchmarks.md "Document ingestion": 1 MB of generated English ingested end to end (chunk → embed →
# write) by the embedding server on node-llama-cpp's prebuilt CUDA build, with the nomic-embed-text-v1.5
# shape (BERT-base, 768-d, 12 layers; random weights from the test GGUF writer's --full: timing needs the
# shape, not the meaning). Target: ≤ 0.5 s for the pipeline on an H200-class GPU.
#
#   bash scripts/gpu-ingest-check.sh [OUT_DIR]      # writes OUT_DIR/gpu-ingest.json (default data/bench)
#
# Needs an NVIDIA GPU with its driver (nvidia-smi) and `npm ci` done (the CUDA addon ships inside
# node-llama-cpp's @node-llama-cpp/linux-x64-cuda package; nothing is downloaded or compiled).
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir="${1:-${OUT:-data/bench}}"
mkdir -p "$out_dir" data/bench/models
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out_dir/gpu.txt"
model=data/bench/models/nomic-embed-text-v1.5-test-full-f16.gguf
[ -s "$model" ] || node --import tsx scripts/make-test-gguf.ts "$model" --full --dtype f16
# CUDA only: a silent CPU fallback would make the figure meaningless, so the engine line is checked below.
MEMO_EMBED_MODEL="$model" MEMO_LLAMA_GPU=cuda MEMO_LLAMA_SERVER="" \
  node --import tsx scripts/bench-ingest.ts --mb 1 --pieces 4 --out "$out_dir/gpu-ingest.json"
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (!/cuda/i.test(String(r.engine))) { console.error("not on CUDA:", JSON.stringify(r.engine)); process.exit(1); }
console.log(JSON.stringify({ engine: r.engine, pipelineMs: r.pipeline.totalMs, perPieceMs: r.pipeline.runsMs, tokensPerSec: r.pipeline.tokensPerSec, ratio: r.ratio, targetMs: 500 }));
' "$out_dir/gpu-ingest.json"
