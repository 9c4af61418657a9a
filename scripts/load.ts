import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { OpenAIFixtureServer } from "../e2e/support/openai-fixture";
import { chatTurn, postJson } from "./load/requests";
import { KEY, loopbackOnly, type StartedApp, startApp } from "./load/start-app";
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

type LongWrite = { items: number; ms: number; status: number; from: number; to: number };
/** What the run measured, filled in by its workers. */
type Measures = {
  chatMs: number[];
  firstTokenMs: number[];
  chatFailed: number;
  searchMs: number[];
  searchDuringLongWrite: number[];
  searchFailed: number;
  longWrite: LongWrite | null;
  sqliteReadMs: number[];
};
const newMeasures = (): Measures => ({
  chatMs: [],
  firstTokenMs: [],
  chatFailed: 0,
  searchMs: [],
  searchDuringLongWrite: [],
  searchFailed: 0,
  longWrite: null,
  sqliteReadMs: [],
});
/** One load run: where Memo answers, the space it fills, when it ends, where failures and figures go. */
type Run = { base: string; space: string; until: number; fail: (what: string, e: string) => void; m: Measures };

/** Chat turns, one after another in one conversation, until the run ends. */
async function chatWorker({ base, space, until, fail, m }: Run, w: number) {
  let conversationId: string | null = null;
  for (let turn = 0; Date.now() < until; turn++) {
    const message = `Worker ${w}, turn ${turn}: my ${["aunt", "neighbour", "colleague", "friend"][turn % 4]} ${["Rosa", "Karim", "Eli", "Noor"][w % 4]} mentioned the ${["market", "concert", "harbour", "library"][(w + turn) % 4]} on day ${turn}`;
    try {
      const r = await chatTurn(base, conversationId ? { conversationId, message } : { space, message });
      conversationId = r.conversationId ?? conversationId;
      if (r.ok) {
        m.chatMs.push(r.ms);
        if (r.firstTokenMs !== null) m.firstTokenMs.push(r.firstTokenMs);
      } else {
        m.chatFailed++;
        fail("chat", r.error ?? "failed");
      }
    } catch (e) {
      m.chatFailed++;
      fail("chat", e instanceof Error ? e.message : String(e));
    }
  }
}

/** Searches until the run ends; those that overlap the long write are counted apart. */
async function searchWorker({ base, space, until, fail, m }: Run, w: number) {
  for (let i = 0; Date.now() < until; i++) {
    const startedAt = Date.now();
    try {
      const r = await postJson(base, "/api/v1/search", {
        query: `what did ${["Rosa", "Karim", "Eli", "Noor"][(w + i) % 4]} say about the ${["market", "concert", "harbour", "library"][i % 4]}?`,
        space,
        k: 5,
      });
      if (r.status !== 200) {
        m.searchFailed++;
        fail("search", `HTTP ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
      } else {
        m.searchMs.push(r.ms);
        const lw = m.longWrite;
        if (lw === null ? false : startedAt < lw.to && startedAt + r.ms > lw.from) m.searchDuringLongWrite.push(r.ms);
      }
    } catch (e) {
      m.searchFailed++;
      fail("search", e instanceof Error ? e.message : String(e));
    }
  }
}

/** One document of `docBytes`, uploaded at the start and polled until it is done, failed or cancelled. */
async function ingestOneDocument({ base, space, until, fail }: Run, docBytes: number) {
  const form = new FormData();
  form.append("space", space);
  form.append("file", new Blob([`# Load test document\n\n${englishText(docBytes, "load-doc")}`]), "load-doc.md");
  const t = performance.now();
  const res = await fetch(`${base}/api/v1/documents`, { method: "POST", body: form, headers: { origin: base } });
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
}

/** Half-way: one long write (`items` memories embedded, then written in one transaction). */
async function longWriteHalfway({ base, space, fail, m }: Run, items: number, seconds: number) {
  await new Promise((r) => setTimeout(r, (seconds * 1000) / 2 - 1000));
  const from = Date.now();
  m.longWrite = { items, ms: 0, status: 0, from, to: Number.MAX_SAFE_INTEGER };
  const r = await postJson(base, "/api/v1/memories/batch", {
    items: Array.from({ length: items }, (_, i) => ({
      text: `Bulk note ${i}: ${englishText(200, `bulk-${i}`)}`,
      space,
    })),
  });
  m.longWrite = { items, ms: Math.round(r.ms), status: r.status, from, to: Date.now() };
  if (r.status !== 201) fail("long write", `HTTP ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
}

/** The store read through another connection, as any reader would while Memo writes. */
async function readWhileRunning({ space, until, m }: Run, readerDb: Database.Database) {
  const q = readerDb.prepare("SELECT count(*) AS n FROM memories WHERE space_id = ? AND soft_deleted = 0");
  while (Date.now() < until) {
    const t = performance.now();
    q.get(space);
    m.sqliteReadMs.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Let the persistence queue write the last exchanges, then read the store's health. */
async function settledStore(base: string) {
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
  return health?.store ?? null;
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
    const m = newMeasures();
    const run: Run = { base, space: SPACE, until, fail, m };
    // One document: uploaded at the start, polled to the end.
    const docBytes = o.short ? 12_000 : 60_000;
    const ingestion = ingestOneDocument(run, docBytes);
    const longWriteDone = longWriteHalfway(run, o.short ? 60 : 300, o.seconds);
    const reader = readerDb ? readWhileRunning(run, readerDb) : Promise.resolve();
    log(
      `load: ${o.chats} chat turns at a time, ${o.searchers} searchers, 1 document, 1 long write, for ${o.seconds} s`,
    );
    await Promise.all([
      ...Array.from({ length: o.chats }, (_, w) => chatWorker(run, w)),
      ...Array.from({ length: o.searchers }, (_, w) => searchWorker(run, w)),
      longWriteDone,
      reader,
    ]);
    const elapsed = (Date.now() - t0) / 1000;
    const doc = await ingestion;
    const store = await settledStore(base);
    const shutdown = app ? await app.stop() : null;
    const logText = app?.log() ?? "";
    const sqliteBusy = (logText.match(/SQLITE_BUSY|database is locked/g) ?? []).length;
    const secretInLogs = logText.includes(KEY);
    const persistRetries = (logText.match(/persisting the .* failed \(attempt/g) ?? []).length;
    const persistGaveUp = (logText.match(/GAVE UP persisting/g) ?? []).length;
    const failedRequests =
      m.chatFailed + m.searchFailed + (doc.status === "done" ? 0 : 1) + (m.longWrite?.status === 201 ? 0 : 1);
    const lw = m.longWrite;
    const report = {
      ok:
        failedRequests === 0 && sqliteBusy === 0 && Boolean(store?.consistent) && !secretInLogs && persistGaveUp === 0,
      mode: o.short ? "short" : "full",
      seconds: +elapsed.toFixed(1),
      target: o.url ? base : "started by the load script",
      chat: {
        concurrency: o.chats,
        turns: m.chatMs.length,
        failed: m.chatFailed,
        turnsPerSecond: +(m.chatMs.length / elapsed).toFixed(2),
        latencyMs: stats(m.chatMs),
        firstTokenMs: stats(m.firstTokenMs),
      },
      search: {
        concurrency: o.searchers,
        requests: m.searchMs.length,
        failed: m.searchFailed,
        perSecond: +(m.searchMs.length / elapsed).toFixed(2),
        latencyMs: stats(m.searchMs),
        duringLongWriteMs: stats(m.searchDuringLongWrite),
      },
      ingestion: doc,
      longWrite: lw ? { items: lw.items, ms: lw.ms, status: lw.status } : null,
      sqliteReadsMs: app ? stats(m.sqliteReadMs) : "only when the script started Memo",
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
