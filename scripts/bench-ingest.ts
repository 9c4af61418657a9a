/**
 * `npm run bench:ingest [-- --mb 1 --pieces 4 --same-batches --out file.json]`
 *
 * Ingests ~1 MB of generated English text through the real path (staged file → validation → queue →
 * parse → token chunking via the embedding server's /tokenize → dedup → embedding → one transaction per
 * batch) with the current embedding model served by the supervised embedding server, and sends the SAME
 * chunks to the same server as raw /v1/embeddings calls (32 per request, as the HTTP client batches).
 * Tokens are the server's own count (`usage.prompt_tokens`) of those chunks when it reports one; a server
 * that does not (the USE-lite engine) has them counted by the model's own tokenizer before the timed runs
 * (server/embedder/token-count.ts), so tokens/s and the ratio are defined for every model.
 *
 * Load drift: on a shared machine two identical raw runs a minute apart can differ by 2×. So the text is
 * ingested as `--pieces` files (default 4, split at paragraph breaks) and raw runs alternate with pipeline
 * runs — raw, pipeline, raw, pipeline, …, raw — each pipeline run compared with the mean throughput of the
 * raw runs just before and after it. The embedding server's CPU time is reported too: it does not depend
 * on what else the machine is doing, and its ratio is the pipeline's extra work on the server.
 * Prints one JSON object.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "../server/db";
import { EmbedderSupervisor } from "../server/embedder/supervisor";
import { prefixesFor } from "../server/embedder/models";
import { HttpEmbedClient } from "../server/embedder/client";
import { queueFor } from "../server/ingest/queue";
import type { IngestStats } from "../server/ingest/pipeline";
import { addDocument } from "../server/services/document-service";
import type { MemoContext } from "../server/core/context";
import { englishText } from "../server/test/english-text";
import { tokenCounterFor } from "../server/embedder/token-count";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "1" },
    pieces: { type: "string", default: "4" },
    "same-batches": { type: "boolean", default: false },
    out: { type: "string" },
    seed: { type: "string", default: "bench-ingest" },
  },
});
const bytes = Math.round(Number(values.mb) * 1_000_000);
const log = (m: string) => process.stderr.write(`[bench:ingest] ${m}\n`);

/** CPU time (user + system) of a process in ms, from /proc (Linux); null elsewhere. */
function cpuMs(pid: number | null): number | null {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
  } catch {
    return null;
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-ingest-"));
// The raw baseline sends 32 chunks per request; on a one-thread engine that blocks the server for seconds,
// so this supervisor tolerates slow health answers (the app's default would restart a server that busy).
const sup = new EmbedderSupervisor({ log, healthTimeoutMs: 60_000 });
try {
  sup.start();
  const baseUrl = await sup.ensureHealthy(180_000);
  const opened = openDb(path.join(dir, "memory.db"));
  const embedder = new HttpEmbedClient(() => sup.ensureHealthy(10_000));
  const ctx: MemoContext = { db: opened.sqlite, embedder, embedderStatus: () => sup.status() };
  const done: IngestStats[] = [];
  let failure: string | null = null;
  const queue = queueFor(ctx, {
    onFinished: (_doc, outcome) => {
      if (outcome.status === "done") done.push(outcome.stats);
      else failure = outcome.error ?? outcome.status;
    },
  });
  const info = await embedder.info();
  const prefix = prefixesFor(info.model).document;
  const text = englishText(bytes, values.seed);
  const nPieces = Math.max(1, Math.floor(Number(values.pieces)));
  const paragraphs = text.split("\n\n");
  const pieces = Array.from(
    { length: nPieces },
    (_, i) =>
      `${paragraphs
        .slice(Math.round((i * paragraphs.length) / nPieces), Math.round(((i + 1) * paragraphs.length) / nPieces))
        .join("\n\n")}\n`,
  );
  log(`model ${info.model} (${info.dim}-d); ${bytes} bytes of generated English in ${nPieces} file(s)`);

  // Warm-up: first requests of a fresh server are slower (JIT, allocations).
  const warm = englishText(20_000, "warm-up").split("\n\n");
  for (const t of warm.slice(0, 40)) await embedder.tokenize(t);
  await embedder.embedDocuments(warm.slice(0, 8));

  // Token counts of each text by the model's own tokenizer, used where a response carries no `usage`.
  const counter = await tokenCounterFor(info.model, (t) => embedder.tokenize(t));
  const counted = new Map<string, number>();
  const countAll = async (texts: string[]) => {
    for (const t of texts) if (!counted.has(t)) counted.set(t, await counter.count(t));
  };
  const tokenSources = new Set<string>();
  const raw = async (texts: string[], sizes: number[]) => {
    await countAll(texts); // before the clock starts
    let tokens = 0;
    let at = 0;
    const c0 = cpuMs(sup.pid);
    const t = performance.now();
    for (const n of sizes) {
      const send = () =>
        fetch(`${baseUrl}/v1/embeddings`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: texts.slice(at, at + n) }),
        });
      // A kept-alive socket the server closed while idle fails at once ("other side closed"): resend once.
      const res = await send().catch((e: unknown) => {
        if (e instanceof TypeError) return send();
        throw e;
      });
      if (!res.ok) throw new Error(`raw /v1/embeddings answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { data: unknown[]; usage?: { prompt_tokens?: number } };
      if (body.data.length !== n) throw new Error("raw /v1/embeddings returned the wrong number of vectors");
      if (typeof body.usage?.prompt_tokens === "number") {
        tokens += body.usage.prompt_tokens;
        tokenSources.add("embedding server usage.prompt_tokens");
      } else {
        for (const t of texts.slice(at, at + n)) tokens += counted.get(t)!;
        tokenSources.add(counter.source);
      }
      at += n;
    }
    const ms = performance.now() - t;
    return { ms, tokens, tps: (tokens / ms) * 1000, cpuMs: c0 === null ? null : cpuMs(sup.pid)! - c0 };
  };
  const by32 = (n: number) => Array.from({ length: Math.ceil(n / 32) }, (_, i) => Math.min(32, n - i * 32));

  // The chunks the pipeline will embed for each piece (same chunker, same tokenizer), for the raw runs.
  const { parseDocument } = await import("../server/ingest/parse");
  const { chunkSections } = await import("../server/ingest/chunk");
  const planned: string[][] = [];
  for (const [i, p] of pieces.entries()) {
    planned.push(
      (
        await chunkSections((await parseDocument(Buffer.from(p, "utf8"), `bench-${i + 1}.txt`)).sections, embedder)
      ).chunks.map((c) => prefix + c.content),
    );
  }

  type Raw = Awaited<ReturnType<typeof raw>>;
  const raws: Raw[] = [];
  const runs: { ms: number; serverCpuMs: number | null; appCpuMs: number; tokens: number; sameRequests: Raw | null }[] =
    [];
  for (let i = 0; i < nPieces; i++) {
    log(`piece ${i + 1}/${nPieces}: raw embedder run (${planned[i]!.length} chunks, 32 per request)…`);
    raws.push(await raw(planned[i]!, by32(planned[i]!.length)));
    log(`piece ${i + 1}/${nPieces}: pipeline run…`);
    const cpu0 = cpuMs(sup.pid);
    const app0 = process.cpuUsage();
    const t0 = performance.now();
    const row = await addDocument(ctx, `bench-${i + 1}.txt`, Buffer.from(pieces[i]!, "utf8"), "bench");
    await queue.whenIdle();
    const ms = performance.now() - t0;
    const app = process.cpuUsage(app0);
    if (failure || done.length !== i + 1)
      throw new Error(`ingestion did not finish: ${failure ?? "no result"} (document ${row.id})`);
    const stats = done[i]!;
    const texts = stats.embedded.map((c) => prefix + c.content);
    if (texts.join("\u0000") !== planned[i]!.join("\u0000"))
      throw new Error("the pipeline embedded other chunks than planned");
    const serverCpuMs = cpu0 === null ? null : cpuMs(sup.pid)! - cpu0;
    const sameRequests = values["same-batches"] ? await raw(texts, stats.batches) : null;
    runs.push({ ms, serverCpuMs, appCpuMs: (app.user + app.system) / 1000, tokens: raws[i]!.tokens, sameRequests });
  }
  log("raw embedder run after the last piece…");
  raws.push(await raw(planned[nPieces - 1]!, by32(planned[nPieces - 1]!.length)));

  // Each pipeline run against the raw throughput measured just before and just after it.
  const tokens = runs.reduce((n, r) => n + r.tokens, 0);
  const pipelineMs = runs.reduce((n, r) => n + r.ms, 0);
  const rawMs = runs.reduce((n, r, i) => n + r.tokens / ((raws[i]!.tps + raws[i + 1]!.tps) / 2 / 1000), 0);
  const rawCpu = raws.slice(0, nPieces).every((r) => r.cpuMs !== null)
    ? raws.slice(0, nPieces).reduce((n, r) => n + r.cpuMs!, 0)
    : null;
  const pipeCpu = runs.every((r) => r.serverCpuMs !== null) ? runs.reduce((n, r) => n + r.serverCpuMs!, 0) : null;
  const sameMs = values["same-batches"] ? runs.reduce((n, r) => n + r.sameRequests!.ms, 0) : null;
  const sum = (f: (s: IngestStats) => number) => done.reduce((n, s) => n + f(s), 0);
  const batches = done.flatMap((s) => s.batches);
  const tps = (ms: number) => Math.round((tokens / ms) * 1000);
  const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  const result = {
    model: info.model,
    dim: info.dim,
    engine: sup.status().engine,
    input: {
      bytes,
      files: nPieces,
      chunks: sum((s) => s.chunks),
      tokens,
      tokensCountedBy: [...tokenSources],
      tokensCountedByChunker: sum((s) => s.tokens),
      avgChunkTokens: Math.round(sum((s) => s.tokens) / sum((s) => s.chunks)),
    },
    pipeline: {
      totalMs: Math.round(pipelineMs),
      tokensPerSec: tps(pipelineMs),
      runsMs: runs.map((r) => Math.round(r.ms)),
      stagesMs: {
        parse: Math.round(sum((s) => s.timings.parseMs)),
        tokenizeAndChunk: Math.round(sum((s) => s.timings.chunkMs)),
        embedAndWrite: Math.round(sum((s) => s.timings.embedWriteMs)),
        writeOnly: Math.round(sum((s) => s.timings.writeMs)),
      },
      tokenizeCalls: sum((s) => s.tokenizeCalls),
      requests: batches.length,
      chunksPerRequest: {
        mean: round(batches.reduce((a, b) => a + b, 0) / Math.max(1, batches.length), 1),
        min: Math.min(...batches),
        max: Math.max(...batches),
      },
      embeddingServerCpuMs: pipeCpu === null ? null : Math.round(pipeCpu),
      appCpuMs: Math.round(runs.reduce((n, r) => n + r.appCpuMs, 0)),
    },
    embedder: {
      chunksPerRequest: 32,
      totalMs: Math.round(rawMs),
      tokensPerSec: tps(rawMs),
      runsTokensPerSec: raws.map((r) => Math.round(r.tps)),
      embeddingServerCpuMs: rawCpu === null ? null : Math.round(rawCpu),
    },
    ...(sameMs !== null ? { embedderSameRequests: { totalMs: Math.round(sameMs), tokensPerSec: tps(sameMs) } } : {}),
    ratio: round(rawMs / pipelineMs),
    ...(sameMs !== null ? { ratioSameRequests: round(sameMs / pipelineMs) } : {}),
    serverCpuRatio: pipeCpu && rawCpu ? round(rawCpu / pipeCpu) : null,
    target: 0.8,
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((x) => round(x, 2)) },
  };
  const json = JSON.stringify(result, null, 2);
  console.log(json);
  if (values.out) fs.writeFileSync(values.out, `${json}\n`);
  await queue.stop();
  opened.sqlite.close();
} finally {
  await sup.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
