#!/usr/bin/env bash
# `npm run build:llama-server`: an optional one-time build of llama.cpp's native llama-server from the
# source bundle shipped inside node-llama-cpp (no download). About 30 minutes on 2 cores.
# Output: data/llama.cpp/build/bin/llama-server, which Memo then uses by default for GGUF embeddings.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$root/node_modules/node-llama-cpp/llama/gitRelease.bundle"
src="$root/data/llama.cpp"
[ -f "$bundle" ] || { echo "build:llama-server: $bundle is missing (run npm install)"; exit 1; }
command -v cmake >/dev/null || { echo "build:llama-server: cmake is required"; exit 1; }
if [ ! -d "$src/.git" ]; then
  rm -rf "$src"
  git clone -q "$bundle" "$src"
fi
cd "$src"
cmake -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build build --target llama-server -j"${JOBS:-$(nproc)}"
echo "build:llama-server: built $src/build/bin/llama-server"
