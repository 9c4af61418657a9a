/**
 * `npm run bench:embed`: embedding engine latency on the same GGUF — node-llama-cpp (Memo's embedding
 * server, server/embedder/main.ts) against a native llama-server built from the llama.cpp source bundled
 * in node-llama-cpp (`npm run build:llama-server`; skipped with a note when not built).
 *
 *   npm run bench:embed -- [--threads 1,2] [--queries 30] [--passages 10] [--out FILE] [--tiny]
 *
 * The model is the full nomic-embed-text-v1.5 shape (BERT-base, 768-d, 12 layers, q8_0) with random
 * weights, written by the test GGUF writer and cached under data/bench/models/: timing needs the shape,
 * not the meaning. Both engines are driven over the same HTTP API by the same client; JSON out.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { parseArgs } from "node:util";
import { dataDir } from "../server/core/config";
import { findLlamaServer } from "../server/embedder/models";
import { llamaServerArgs } from "../server/embedder/supervisor";
import { writeFullNomicGguf, writeTinyNomicGguf } from "../server/test/gguf/write-gguf";

const { values } = parseArgs({
  options: {
    threads: { type: "string", default: "1,2" },
    queries: { type: "string", default: "30" },
    passages: { type: "string", default: "10" },
    out: { type: "string" },
    tiny: { type: "boolean", default: false },
  },
});

const QUERY = "search_query: what did I tell you about my sister's trip to Lisbon last spring?";
const WORDS =
  "the quick brown fox jumps over a lazy dog while my sister plans her trip to lisbon and we talk about work family food travel music books".split(
    " ",
  );
const PASSAGE = `search_document: ${Array.from({ length: 300 }, (_, i) => WORDS[(i * 7) % WORDS.length]).join(" ")}`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs = 180_000): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not become healthy");
}

async function embedOnce(url: string, text: string): Promise<number> {
  const t = performance.now();
  const r = await fetch(`${url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: text }),
  });
  const body = (await r.json()) as { data?: { embedding: number[] }[] };
  if (!r.ok || !body.data?.[0]?.embedding.length)
    throw new Error(`embedding failed: ${JSON.stringify(body).slice(0, 200)}`);
  return performance.now() - t;
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
  return { p50: +q(0.5).toFixed(2), p95: +q(0.95).toFixed(2) };
}

async function measure(url: string) {
  for (let i = 0; i < 3; i++) {
    await embedOnce(url, QUERY);
    await embedOnce(url, PASSAGE);
  }
  const q: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < Number(values.queries); i++) q.push(await embedOnce(url, QUERY));
  for (let i = 0; i < Number(values.passages); i++) p.push(await embedOnce(url, PASSAGE));
  return { query: stats(q), passage: stats(p) };
}

async function run(kind: "node-llama-cpp" | "llama-server", model: string, threads: number) {
  const env = { ...process.env, OMP_WAIT_POLICY: "PASSIVE" };
  let child: ChildProcess;
  let url: string;
  if (kind === "llama-server") {
    const port = await freePort();
    child = spawn(findLlamaServer()!, llamaServerArgs(model, port, "2048", threads), {
      env,
      stdio: ["ignore", "ignore", "ignore"],
    });
    url = `http://127.0.0.1:${port}`;
  } else {
    child = spawn(
      process.execPath,
      ["--import", "tsx", "server/embedder/main.ts", "--port", "0", "--model", model, "--threads", String(threads)],
      { env, stdio: ["ignore", "pipe", "ignore"] },
    );
    url = await new Promise<string>((resolve) => {
      readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        const m = line.match(/"event":"listening","port":(\d+)/);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      });
    });
  }
  try {
    await waitHealthy(url, child);
    return await measure(url);
  } finally {
    child.kill("SIGKILL");
  }
}

async function main() {
  const dir = path.join(dataDir(), "bench", "models");
  fs.mkdirSync(dir, { recursive: true });
  const model = path.join(
    dir,
    values.tiny ? "nomic-embed-text-v1.5-test-tiny.gguf" : "nomic-embed-text-v1.5-bench-q8_0.gguf",
  );
  if (!fs.existsSync(model)) {
    console.error(`writing ${model} (random weights, nomic-embed-text-v1.5 shape)…`);
    if (values.tiny) writeTinyNomicGguf(model, { seed: 1 });
    else writeFullNomicGguf(model, { seed: 1, dtype: "q8_0" });
  }
  const native = findLlamaServer();
  const threads = values.threads!.split(",").map(Number);
  const rows: Record<string, unknown>[] = [];
  for (const t of threads) {
    const node = await run("node-llama-cpp", model, t);
    const row: Record<string, unknown> = { threads: t, nodeLlamaCpp: node };
    if (native) {
      const nat = await run("llama-server", model, t);
      row.llamaServer = nat;
      row.ratio = {
        query: +(node.query.p50 / nat.query.p50).toFixed(3),
        passage: +(node.passage.p50 / nat.passage.p50).toFixed(3),
      };
    }
    rows.push(row);
    console.error(JSON.stringify(row));
  }
  const result = {
    model: path.basename(model),
    machine: { cpus: os.availableParallelism(), node: process.version },
    nativeLlamaServer: native ?? "not built (npm run build:llama-server)",
    queryTokens: "≈20",
    passageWords: 300,
    results: rows,
  };
  const json = JSON.stringify(result, null, 2);
  if (values.out) fs.writeFileSync(values.out, `${json}\n`);
  console.log(json);
}

void main();
