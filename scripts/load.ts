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
