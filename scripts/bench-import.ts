/**
 * `npm run bench:import [-- --exchanges 100000 --per-conversation 1 --padding 0 --raw 1024 --shapes chatgpt,claude --out file.json]`
 *
 * A generated export of `--exchanges` exchanges in ChatGPT's shape and in Claude's (server/test/export-generator.ts)
 * sent through the import route's own handler (server/http/import-handlers.ts: the body streamed to a file,
 * checked, queued as a job) and worked by the import runner against the supervised embedding server with
 * the current model, in this process (the server's side of an import, without Next). For each shape:
 *  - exchanges a second, from the request to the job's end, against the raw embedder's texts a second in
 *    the same run (the same kind of texts, 32 per /v1/embeddings request, as the runner batches), measured
 *    just before and just after the import (load drifts on a shared machine): `ratio` = import ÷ median raw;
 *  - this process's peak memory above its idle state (RSS and V8 heap, sampled every 50 ms): the parsed
 *    export is never held, so it does not grow with the file;
 *  - time to the first conversation visible: from the request until the first batch of the import is
 *    stored (its memories searchable, its conversation listed).
 * `--padding N` adds to each conversation N small objects the importers leave out (Claude attachments, a
 * ChatGPT tool message): a file of hundreds of MB with few exchanges, to see the memory stay flat as the
 * file grows without hours of embedding. Prints one JSON object.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    exchanges: { type: "string", default: "100000" },
    "per-conversation": { type: "string", default: "1" },
    raw: { type: "string", default: "1024" },
    padding: { type: "string", default: "0" },
    shapes: { type: "string", default: "chatgpt,claude" },
    out: { type: "string" },
  },
});
const log = (m: string) => process.stderr.write(`[bench:import] ${m}\n`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-import-"));
process.env.MEMO_DATA_DIR = dir; // received files go to <dir>/imports

const { openDb } = await import("../server/db");
const { EmbedderSupervisor } = await import("../server/embedder/supervisor");
const { HttpEmbedClient } = await import("../server/embedder/client");
const { prefixesFor } = await import("../server/embedder/models");
const { setAppContext } = await import("../server/context");
const { runAs } = await import("../server/core/acting");
const { handleImport } = await import("../server/http/import-handlers");
const { getImportJob, startImportRunner, waitForImport, importRunner } = await import("../server/services/import-jobs");
const { exchangeStoredText } = await import("../server/services/import/conversations");
const { exchangeSaid, writeExport } = await import("../server/test/export-generator");
type ExportShape = import("../server/test/export-generator").ExportShape;

const exchanges = Math.max(1, Math.floor(Number(values.exchanges)));
const per = Math.max(1, Math.floor(Number(values["per-conversation"])));
const rawN = Math.max(32, Math.floor(Number(values.raw)));
const padding = Math.max(0, Math.floor(Number(values.padding)));
const shapes = values.shapes.split(",").map((s) => s.trim()) as ExportShape[];
const OWNER = { personId: "owner", admin: true };
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const mb = (b: number) => round(b / 1024 / 1024, 1);

const sup = new EmbedderSupervisor({ log, healthTimeoutMs: 60_000 });
try {
  sup.start();
  const baseUrl = await sup.ensureHealthy(180_000);
  const opened = openDb(path.join(dir, "memory", "memory.db"));
  const embedder = new HttpEmbedClient(() => sup.ensureHealthy(10_000));
  const ctx = { db: opened.sqlite, embedder, embedderStatus: () => sup.status() };
  setAppContext(ctx);
  startImportRunner();
  const info = await embedder.info();
  const prefix = prefixesFor(info.model).document;
  log(`model ${info.model} (${info.dim}-d); ${exchanges} exchanges per shape, ${per} per conversation`);

  /** Raw /v1/embeddings throughput on texts like the import's (other exchanges: nothing cached), 32 per request. */
  let rawFrom = 10_000_000;
  const raw = async (): Promise<number> => {
    const texts = Array.from({ length: rawN }, (_, i) => prefix + exchangeStoredText(exchangeSaid(rawFrom + i)));
    rawFrom += rawN;
    const t = performance.now();
    for (let at = 0; at < texts.length; at += 32) {
      const send = () =>
        fetch(`${baseUrl}/v1/embeddings`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: texts.slice(at, at + 32) }),
        });
      // A kept-alive socket the server closed while idle fails at once ("other side closed"): resend once.
      const res = await send().catch((e: unknown) => {
        if (e instanceof TypeError) return send();
        throw e;
      });
      if (!res.ok) throw new Error(`raw /v1/embeddings answered ${res.status}`);
      await res.json();
    }
    return (texts.length / (performance.now() - t)) * 1000;
  };
  await raw(); // warm-up (first requests of a fresh server are slower)

  const results: Record<string, unknown> = {};
  let from = 0;
  for (const shape of shapes) {
    const file = path.join(dir, `${shape}-export.json`);
    const size = writeExport(file, shape, { exchanges, perConversation: per, from, padding });
    from += exchanges;
    log(`${shape}: ${mb(size)} MB file; raw run…`);
    const rawBefore = await raw();
    // Idle: after a settle, with what the process holds between imports.
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const idle = process.memoryUsage();
    let peakRss = idle.rss;
    let peakHeap = idle.heapUsed;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 50);
    log(`${shape}: importing…`);
    const t0 = performance.now();
    const req = new Request(`http://127.0.0.1/api/v1/import/${shape}?space=bench-${shape}&filename=${shape}.json`, {
      method: "POST",
      headers: { "content-length": String(size), "content-type": "application/json" },
      body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    const res = await runAs(OWNER, () => handleImport(shape, req));
    if (res.status !== 202) throw new Error(`the import answered ${res.status}: ${await res.text()}`);
    const accepted = performance.now() - t0;
    const { job } = (await res.json()) as { job: { id: string } };
    let firstMs: number | null = null;
    while (firstMs === null) {
      const j = runAs(OWNER, () => getImportJob(ctx.db, job.id))!;
      if (j.imported > 0) firstMs = performance.now() - t0;
      else if (j.status !== "queued" && j.status !== "running") break;
      else await new Promise((r) => setTimeout(r, 20));
    }
    const done = await runAs(OWNER, () => waitForImport(ctx.db, job.id));
    const ms = performance.now() - t0;
    clearInterval(sampler);
    if (done.status !== "done" || done.imported !== exchanges)
      throw new Error(
        `${shape}: the import ended ${done.status} with ${done.imported} of ${exchanges} (${done.error})`,
      );
    const rawAfter = await raw();
    const rate = (exchanges / ms) * 1000;
    const rawMedian = median([rawBefore, rawAfter]);
    results[shape] = {
      fileMB: mb(size),
      exchanges,
      acceptedMs: Math.round(accepted),
      importSeconds: round(ms / 1000, 1),
      exchangesPerSec: round(rate, 1),
      rawTextsPerSec: { before: round(rawBefore, 1), after: round(rawAfter, 1), median: round(rawMedian, 1) },
      ratio: round(rate / rawMedian, 3),
      firstConversationVisibleMs: firstMs === null ? null : Math.round(firstMs),
      memoryAboveIdleMB: { rss: mb(peakRss - idle.rss), heap: mb(peakHeap - idle.heapUsed) },
      idleMB: { rss: mb(idle.rss), heap: mb(idle.heapUsed) },
    };
    log(`${shape}: ${JSON.stringify(results[shape])}`);
    fs.rmSync(file, { force: true });
  }
  const per_ = Object.values(results) as {
    ratio: number;
    memoryAboveIdleMB: { rss: number };
    firstConversationVisibleMs: number;
  }[];
  const out = {
    bench: "import",
    model: info.model,
    engine: sup.status().engine,
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((l) => round(l, 1)) },
    exchanges,
    perConversation: per,
    padding,
    shapes: results,
    medians: {
      ratio: round(median(per_.map((r) => r.ratio)), 3),
      rssAboveIdleMB: round(median(per_.map((r) => r.memoryAboveIdleMB.rss)), 1),
      firstConversationVisibleMs: Math.round(median(per_.map((r) => r.firstConversationVisibleMs))),
    },
    targets: { ratio: ">= 0.8", rssAboveIdleMB: "< 300" },
  };
  const text = JSON.stringify(out, null, 2);
  if (values.out) fs.writeFileSync(values.out, `${text}\n`);
  console.log(text);
  await importRunner().stop();
  opened.sqlite.close();
} finally {
  await sup.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
