/**
 * `npm run load`: load on a running Memo over loopback HTTP, reported as JSON.
 *
 *   npm run load                        start Memo itself (own data folder and port, the OpenAI-compatible
 *                                       fixture as chat provider), 60 s of load, stop it with SIGTERM
 *   npm run load -- --short             the same for ~10 s (what the e2e run does)
 *   npm run load -- --url http://127.0.0.1:3000   load an app that runs already (its chat provider must answer)
 *
 * Options: --seconds N (default 60; 10 with --short), --chats N concurrent chat turns (50), --searchers N
 * concurrent searches (4), --app start|next (how to start Memo: `node scripts/start.mjs`, which builds when
 * needed, or `next start` on the existing build), --out FILE (also write the report there), --json (only JSON).
 *
 * Traffic: 50 chat turns at a time (POST /api/chat, each worker continuing its own conversation, read to the
 * end of the stream), searches (POST /api/v1/search), one document ingested (POST /api/v1/documents, polled
 * to the end), and half-way one long write (POST /api/v1/memories/batch: many memories, one transaction)
 * with the searches that overlapped it reported apart. When it started Memo itself, it also reads the store
 * through its own SQLite connection every 50 ms (a reader never waits for a writer in WAL mode: those
 * read times show it), and searches Memo's log for SQLITE_BUSY / "database is locked" and for the
 * provider key. Only 127.0.0.1 / localhost is ever contacted.
 *
 * Exit status 1 when a request failed, SQLITE_BUSY appeared, the store was inconsistent after the run, or
 * the key appeared in the log.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { OpenAIFixtureServer } from "../e2e/support/openai-fixture";
import { freePort } from "../server/ops/child-process";
import { englishText } from "../server/test/english-text";

export interface LoadOptions {
  url?: string;
  seconds: number;
  chats: number;
  searchers: number;
  app: "start" | "next";
  short: boolean;
  log?: (msg: string) => void;
}

type Stats = { n: number; p50: number | null; p95: number | null; max: number | null };

function stats(xs: number[]): Stats {
  if (xs.length === 0) return { n: 0, p50: null, p95: null, max: null };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10;
  return { n: s.length, p50: q(0.5), p95: q(0.95), max: Math.round(s[s.length - 1]! * 10) / 10 };
}

const KEY = "sk-load-test-SECRET-0d4f8a2c";

function loopbackOnly(url: string): void {
  const host = new URL(url).hostname;
  if (!(host === "localhost" || host === "[::1]" || host === "::1" || /^127\./.test(host))) {
    throw new Error(`the load script only sends traffic to this machine (127.0.0.1 / localhost), not to ${host}`);
  }
}

interface StartedApp {
  url: string;
  dataDir: string;
  log: () => string;
  stop: () => Promise<{ ms: number; code: number | null }>;
}

/** Start Memo on its own data folder and port, with the fixture as its chat provider. */
async function startApp(app: "start" | "next", fixtureUrl: string, log: (m: string) => void): Promise<StartedApp> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-load-"));
  const env = {
    ...process.env,
    PORT: String(port),
    MEMO_HOST: "127.0.0.1",
    MEMO_DATA_DIR: dataDir,
    MEMO_OFFLINE: "1",
    MEMO_EMBED_MODEL: process.env.MEMO_EMBED_MODEL ?? "use-lite",
    NEXT_TELEMETRY_DISABLED: "1",
    MEMO_PROVIDER: "openai",
    MEMO_OPENAI_BASE_URL: fixtureUrl,
    MEMO_OPENAI_MODEL: "fixture-echo",
    MEMO_OPENAI_API_KEY: KEY,
  };
  const args =
    app === "start"
      ? ["scripts/start.mjs"]
      : ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  log(`starting Memo (${app === "start" ? "scripts/start.mjs" : "next start"}) on ${url}, data in ${dataDir}`);
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`Memo exited (${child.exitCode}) before it was ready:\n${out.slice(-3000)}`);
    try {
      const res = await fetch(`${url}/api/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - t0 > 240_000) throw new Error(`Memo was not healthy after 240 s:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`Memo healthy after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return {
    url,
    dataDir,
    log: () => out,
    async stop() {
      const t = Date.now();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      return { ms: Date.now() - t, code: child.exitCode };
    },
  };
}

/** POST /api/chat and read the event stream to its end. */
async function chatTurn(
  base: string,
  body: Record<string, unknown>,
): Promise<{ ok: boolean; ms: number; firstTokenMs: number | null; conversationId: string | null; error?: string }> {
  const t0 = performance.now();
  let firstTokenMs: number | null = null;
  const res = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(body),
  });
  const conversationId = res.headers.get("x-memo-conversation");
  if (!res.ok || !res.body)
    return {
      ok: false,
      ms: performance.now() - t0,
      firstTokenMs,
      conversationId,
      error: `HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`,
    };
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  let end: string | null = null;
  let error: string | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let at: number;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const data = frame
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6);
      if (!data) continue;
      const ev = JSON.parse(data) as { type: string; message?: string };
      if (ev.type === "delta" && firstTokenMs === null) firstTokenMs = performance.now() - t0;
      if (ev.type === "done" || ev.type === "command") end = ev.type;
      if (ev.type === "error") error = ev.message;
    }
  }
  return {
    ok: end !== null && !error,
    ms: performance.now() - t0,
    firstTokenMs,
    conversationId,
    error: error ?? (end ? undefined : "the stream ended without a done event"),
  };
}

async function postJson(
  base: string,
  p: string,
  body: unknown,
): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${base}${p}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, ms: performance.now() - t0 };
}

export async function runLoad(o: LoadOptions): Promise<Record<string, unknown> & { ok: boolean }> {
  const log = o.log ?? ((m: string) => console.error(`[load] ${m}`));
  let fixture: OpenAIFixtureServer | null = null;
  let app: StartedApp | null = null;
  let base = o.url;
  if (base) loopbackOnly(base);
  else {
    // a provider that answers like a fast model: 20 ms to the first token, then a piece every 2 ms
    fixture = await OpenAIFixtureServer.start({ apiKey: KEY, firstTokenMs: 20, chunkMs: 2 });
    app = await startApp(o.app, fixture.url, log);
    base = app.url;
  }
  const SPACE = `load${Date.now().toString(36)}`;
  const errors: string[] = [];
  const fail = (what: string, e: string) => {
    if (errors.length < 50) errors.push(`${what}: ${e}`);
  };
  let readerDb: Database.Database | null = null;
  try {
    // Warm-up (not measured): the space exists and has something to find.
    const seed = await postJson(base, "/api/v1/memories/batch", {
      items: Array.from({ length: 20 }, (_, i) => ({
        text: `Seed note ${i}: ${englishText(300, `seed-${i}`)}`,
        space: SPACE,
      })),
    });
    if (seed.status !== 201)
      throw new Error(`warm-up failed: ${seed.status} ${JSON.stringify(seed.body).slice(0, 300)}`);
    if (app) {
      readerDb = new Database(path.join(app.dataDir, "memory", "memory.db"), { readonly: true, fileMustExist: true });
    }

    const t0 = Date.now();
    const until = t0 + o.seconds * 1000;
    const chatMs: number[] = [];
    const firstTokenMs: number[] = [];
    let chatFailed = 0;
    const searchMs: number[] = [];
    const searchDuringLongWrite: number[] = [];
    let searchFailed = 0;
    let longWrite: { items: number; ms: number; status: number; from: number; to: number } | null = null;
    const sqliteReadMs: number[] = [];

    const chatWorker = async (w: number) => {
      let conversationId: string | null = null;
      for (let turn = 0; Date.now() < until; turn++) {
        const message = `Worker ${w}, turn ${turn}: my ${["aunt", "neighbour", "colleague", "friend"][turn % 4]} ${["Rosa", "Karim", "Eli", "Noor"][w % 4]} mentioned the ${["market", "concert", "harbour", "library"][(w + turn) % 4]} on day ${turn}`;
        try {
          const r = await chatTurn(base!, conversationId ? { conversationId, message } : { space: SPACE, message });
          conversationId = r.conversationId ?? conversationId;
          if (r.ok) {
            chatMs.push(r.ms);
            if (r.firstTokenMs !== null) firstTokenMs.push(r.firstTokenMs);
          } else {
            chatFailed++;
            fail("chat", r.error ?? "failed");
          }
        } catch (e) {
          chatFailed++;
          fail("chat", e instanceof Error ? e.message : String(e));
        }
      }
    };
    const searchWorker = async (w: number) => {
      for (let i = 0; Date.now() < until; i++) {
        const startedAt = Date.now();
        try {
          const r = await postJson(base!, "/api/v1/search", {
            query: `what did ${["Rosa", "Karim", "Eli", "Noor"][(w + i) % 4]} say about the ${["market", "concert", "harbour", "library"][i % 4]}?`,
            space: SPACE,
            k: 5,
          });
          if (r.status !== 200) {
            searchFailed++;
            fail("search", `HTTP ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
          } else {
            searchMs.push(r.ms);
            if (longWrite === null ? false : startedAt < longWrite.to && startedAt + r.ms > longWrite.from)
              searchDuringLongWrite.push(r.ms);
          }
        } catch (e) {
          searchFailed++;
          fail("search", e instanceof Error ? e.message : String(e));
        }
      }
    };
    // One document: uploaded at the start, polled to the end.
    const docBytes = o.short ? 12_000 : 60_000;
    const ingestion = (async () => {
      const form = new FormData();
      form.append("space", SPACE);
      form.append("file", new Blob([`# Load test document\n\n${englishText(docBytes, "load-doc")}`]), "load-doc.md");
      const t = performance.now();
      const res = await fetch(`${base}/api/v1/documents`, { method: "POST", body: form, headers: { origin: base! } });
      const body = (await res.json()) as { documents?: { id: string; status: string }[] };
      if (res.status !== 202 || !body.documents?.[0]) {
        fail("ingest", `upload answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
        return { status: "upload failed", bytes: docBytes };
      }
      const id = body.documents[0].id;
      for (;;) {
        const r = await fetch(`${base}/api/v1/documents/${id}`);
        const d = (await r.json()) as { status: string; chunksDone: number; chunksTotal: number; error: string | null };
        if (d.status === "done" || d.status === "failed" || d.status === "cancelled") {
          if (d.status !== "done") fail("ingest", `${d.status}: ${d.error}`);
          return {
            status: d.status,
            bytes: docBytes,
            chunks: d.chunksTotal,
            seconds: +((performance.now() - t) / 1000).toFixed(1),
            finishedWithinRun: Date.now() < until,
          };
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    // Half-way: one long write (many memories embedded, then written in one transaction).
    const longWriteItems = o.short ? 60 : 300;
    const longWriteDone = (async () => {
      await new Promise((r) => setTimeout(r, (o.seconds * 1000) / 2 - 1000));
      const from = Date.now();
      longWrite = { items: longWriteItems, ms: 0, status: 0, from, to: Number.MAX_SAFE_INTEGER };
      const r = await postJson(base!, "/api/v1/memories/batch", {
        items: Array.from({ length: longWriteItems }, (_, i) => ({
          text: `Bulk note ${i}: ${englishText(200, `bulk-${i}`)}`,
          space: SPACE,
        })),
      });
      longWrite = { items: longWriteItems, ms: Math.round(r.ms), status: r.status, from, to: Date.now() };
      if (r.status !== 201) fail("long write", `HTTP ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
    })();
    // The store read through another connection, as any reader would while Memo writes.
    const reader = (async () => {
      if (!readerDb) return;
      const q = readerDb.prepare("SELECT count(*) AS n FROM memories WHERE space_id = ? AND soft_deleted = 0");
      while (Date.now() < until) {
        const t = performance.now();
        q.get(SPACE);
        sqliteReadMs.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    log(
      `load: ${o.chats} chat turns at a time, ${o.searchers} searchers, 1 document, 1 long write, for ${o.seconds} s`,
    );
    await Promise.all([
      ...Array.from({ length: o.chats }, (_, w) => chatWorker(w)),
      ...Array.from({ length: o.searchers }, (_, w) => searchWorker(w)),
      longWriteDone,
      reader,
    ]);
    const elapsed = (Date.now() - t0) / 1000;
    const doc = await ingestion;
    // Let the persistence queue write the last exchanges, then read the store's health.
    type Health = { ok: boolean; store: { memories: number; vectors: number; fts: number; consistent: boolean } };
    let health: Health | null = null;
    let last = -1;
    for (let i = 0; i < 60; i++) {
      const h = await fetch(`${base}/api/health`);
      const now = (await h.json()) as Health;
      health = now;
      if (now.store.memories === last) break;
      last = now.store.memories;
      await new Promise((r) => setTimeout(r, 500));
    }
    const store = (health as Health | null)?.store ?? null;
    const shutdown = app ? await app.stop() : null;
    const logText = app?.log() ?? "";
    const sqliteBusy = (logText.match(/SQLITE_BUSY|database is locked/g) ?? []).length;
    const secretInLogs = logText.includes(KEY);
    const persistRetries = (logText.match(/persisting the .* failed \(attempt/g) ?? []).length;
    const persistGaveUp = (logText.match(/GAVE UP persisting/g) ?? []).length;
    const failedRequests =
      chatFailed +
      searchFailed +
      (doc.status === "done" ? 0 : 1) +
      ((longWrite as { status: number } | null)?.status === 201 ? 0 : 1);
    const lw = longWrite as { items: number; ms: number; status: number } | null;
    const report = {
      ok:
        failedRequests === 0 && sqliteBusy === 0 && Boolean(store?.consistent) && !secretInLogs && persistGaveUp === 0,
      mode: o.short ? "short" : "full",
      seconds: +elapsed.toFixed(1),
      target: o.url ? base : "started by the load script",
      chat: {
        concurrency: o.chats,
        turns: chatMs.length,
        failed: chatFailed,
        turnsPerSecond: +(chatMs.length / elapsed).toFixed(2),
        latencyMs: stats(chatMs),
        firstTokenMs: stats(firstTokenMs),
      },
      search: {
        concurrency: o.searchers,
        requests: searchMs.length,
        failed: searchFailed,
        perSecond: +(searchMs.length / elapsed).toFixed(2),
        latencyMs: stats(searchMs),
        duringLongWriteMs: stats(searchDuringLongWrite),
      },
      ingestion: doc,
      longWrite: lw ? { items: lw.items, ms: lw.ms, status: lw.status } : null,
      sqliteReadsMs: app ? stats(sqliteReadMs) : "only when the script started Memo",
      failedRequests,
      sqliteBusy: app ? sqliteBusy : "only when the script started Memo",
      secretInLogs: app ? secretInLogs : "only when the script started Memo",
      persistence: app
        ? {
            retries: persistRetries,
            gaveUp: persistGaveUp,
            firstRetries: (logText.match(/persisting the .* failed \(attempt[^\n]*/g) ?? []).slice(0, 3),
          }
        : "only when the script started Memo",
      store,
      shutdown,
      errors,
    };
    return report;
  } finally {
    readerDb?.close();
    if (app) {
      await app.stop();
      fs.rmSync(app.dataDir, { recursive: true, force: true });
    }
    await fixture?.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      short: { type: "boolean", default: false },
      seconds: { type: "string" },
      chats: { type: "string", default: "50" },
      searchers: { type: "string", default: "4" },
      app: { type: "string", default: "start" },
      out: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const report = await runLoad({
    url: values.url,
    short: values.short!,
    seconds: Number(values.seconds ?? (values.short ? 10 : 60)),
    chats: Number(values.chats),
    searchers: Number(values.searchers),
    app: values.app === "next" ? "next" : "start",
    log: values.json ? () => undefined : undefined,
  });
  const text = JSON.stringify(report, null, 2);
  if (values.out) fs.writeFileSync(values.out, `${text}\n`);
  console.log(text);
  process.exit(report.ok ? 0 : 1);
}
