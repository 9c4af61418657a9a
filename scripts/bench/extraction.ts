/**
 * `extractionCost` in `npm run bench` (issue 42's "Extraction cost", docs/facts.md#costs): what learning facts
 * costs, with the fixture model (the OpenAI-compatible TEST DOUBLE answering memo_facts from a script, on
 * loopback: no model time, so the figures are Memo's own cost around a call) and the real bundled embedder
 * (USE-lite in process) on a fresh temporary store.
 *
 *   queue       the runner catching up a backlog of `exchanges` stored exchanges (each stating two facts,
 *               one of them replacing the exchange's earlier value): exchanges/s and calls (batched), median
 *               ms per call; everything but the model — the candidate lookup (query embedding + searchFacts),
 *               the request, the check, embedding the facts and the write.
 *   store       bytes the store grew per learned fact (pages of facts, fact_sources, fact_vectors and the
 *               space's fact keyword table, from SQLite's dbstat), and the queue's own rows per exchange
 *               (fact_jobs, fact_job_sources, fact_attempts).
 *   reply       the chat turn's time to `done` with learning on vs off (the same turns, alternating blocks,
 *               1 s apart; with learning on, each exchange's extraction runs in the quiet gap after it, and
 *               a call started during a turn fails the bench): medians, p95 and the on/off ratio — learning must add
 *               nothing to the reply's path.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { FactLearner } from "../../server/chat/fact-learner";
import { setLearning } from "../../server/chat/fact-model";
import { PersistQueue } from "../../server/chat/exchange-queue";
import { saveProviderSettings } from "../../server/chat/providers";
import { runTurn, type TurnEvent } from "../../server/chat/turn";
import type { MemoContext } from "../../server/core/context";
import { openDb } from "../../server/db";
import { beginRequest } from "../../server/ops/inflight";
import { queueCounts } from "../../server/memory/facts/queue";
import { inProcessEmbedder } from "../../server/test/in-process-embedder";

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
  return { p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3) };
}

/** The fact store's tables and their indexes (drizzle/0019_facts.sql) and the space's fact keyword tables. */
const FACT_TABLES =
  /^(facts|facts_\w+|fact_sources\w*|fact_vectors\w*|fact_vector_trash|kw_f_\w+|sqlite_autoindex_(facts|fact_sources|fact_vectors)_\d+)$/;

/**
 * Between turns of the reply measurement (`gapMs` overrides it), and the runner's quiet window there: the
 * window, the known-facts look-up (embeddings, 100–300 ms on 2 cores) and the call must fit in the gap
 * (400 ms did not, often).
 */
const GAP_MS = 1000;
const QUIET_MS = 250;

const quiet = () => undefined;

const CITIES = ["Lisbon", "Porto", "Berlin", "Madrid", "Oslo", "Riga", "Turin", "Ghent"];

/** Bytes of the tables a name matches, from dbstat (every page of them, indexes included). */
function tableBytes(db: import("better-sqlite3").Database, match: (name: string) => boolean): number {
  const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
    name: string;
    bytes: number;
  }[];
  return rows.filter((r) => match(r.name)).reduce((n, r) => n + r.bytes, 0);
}

export async function extractionCost(o: { exchanges: number; turns: number; gapMs?: number }) {
  const gapMs = o.gapMs ?? GAP_MS;
  if (!Number.isFinite(gapMs) || gapMs < 0) throw new Error(`the gap between turns must be ms ≥ 0 (got ${o.gapMs})`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-facts-"));
  const opened = openDb(path.join(dir, "memory.db"));
  const memo: MemoContext = { db: opened.sqlite, embedder: await inProcessEmbedder() };
  const fixture = await OpenAIFixtureServer.start();
  try {
    const db = opened.sqlite;
    saveProviderSettings(db, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
    const key = `openai@${new URL(fixture.url).host}`;
    // Person k's exchange says where they live now (replacing the last city) and one thing they own.
    const lines = Array.from({ length: o.exchanges }, (_, i) => {
      const city = CITIES[i % CITIES.length]!;
      return { user: `Update ${i}: I moved to ${city} and I bought item-${i}.`, city, i };
    });
    fixture.facts.set(
      lines.map((l) => ({
        when: `Update ${l.i}:`,
        facts: [
          { text: `The user lives in ${l.city}.`, replaces: ["The user lives in"] },
          { text: `The user owns item-${l.i}.` },
        ],
      })),
    );

    const queue = await measureQueue(memo, fixture, lines);
    const reply = await measureReply(memo, fixture, key, o.turns, gapMs);
    const dim = (await memo.embedder.info()).dim;
    return {
      model: "fixture (TEST DOUBLE: memo_facts answered from a script, no model time)",
      embedder: `${(await memo.embedder.info()).model} (${dim}-d, in process)`,
      queue: {
        exchanges: o.exchanges,
        calls: queue.calls,
        done: queue.counts.done,
        failed: queue.counts.failed,
        ms: +queue.ms.toFixed(1),
        exchangesPerSec: +((o.exchanges / queue.ms) * 1000).toFixed(2),
        msPerCall: +(queue.ms / Math.max(1, queue.calls)).toFixed(2),
        providerCall: stats(queue.callMs),
      },
      store: {
        facts: queue.facts,
        bytesPerFact: Math.round((queue.factBytes - queue.pagesBefore) / Math.max(1, queue.facts)),
        vectorBytesPerFact: dim * 4,
        queueBytesPerExchange: Math.round(queue.queueBytes / Math.max(1, o.exchanges)),
      },
      reply: {
        turns: o.turns,
        gapMs,
        quietMs: QUIET_MS,
        /** Extractions that ran in the gaps between the learning-on turns (never during one: checked per turn). */
        learnedBetweenTurns: reply.learnedBetweenTurns,
        on: reply.on,
        off: reply.off,
        ratios: {
          p50OnOverOff: +(reply.on.p50 / reply.off.p50).toFixed(3),
          p95OnOverOff: +(reply.on.p95 / reply.off.p95).toFixed(3),
        },
        note: "time to the turn's done event (recall, provider, storing the reply); learning on: each exchange's extraction runs in the quiet gap after it",
      },
    };
  } finally {
    await fixture.close();
    opened.sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Exchange = { user: string; city: string; i: number };

/** The queue: a backlog of `lines` stored while no runner ran, then caught up; what it cost and stored. */
async function measureQueue(memo: MemoContext, fixture: OpenAIFixtureServer, lines: Exchange[]) {
  const db = memo.db;
  const persist = new PersistQueue(() => memo, { log: quiet });
  for (const l of lines)
    await persist.enqueue({
      space: "personal",
      conversationId: null,
      user: l.user,
      assistant: "Noted.",
      timestamp: new Date(Date.UTC(2024, 0, 1) + l.i * 3_600_000).toISOString(),
      source: "bench",
      learn: { provider: "openai" },
    });
  const pagesBefore = tableBytes(db, (n) => FACT_TABLES.test(n));
  const learner = new FactLearner(() => memo, { log: quiet, quietMs: 0 });
  const calls0 = fixture.facts.calls;
  const t0 = performance.now();
  learner.wake();
  await learner.idle();
  const ms = performance.now() - t0;
  const queueCalls = fixture.facts.calls - calls0;
  await learner.stop();
  const counts = queueCounts(db);
  const facts = (db.prepare("SELECT count(*) AS n FROM facts").get() as { n: number }).n;
  const factBytes = tableBytes(db, (n) => FACT_TABLES.test(n));
  // The provider's own time per call, as the attempts recorded it (the fixture answers at once).
  const callMs = (db.prepare("SELECT max(ms) AS ms FROM fact_attempts GROUP BY call_id").all() as { ms: number }[]).map(
    (r) => r.ms,
  );
  const queueBytes = tableBytes(db, (n) => /^(fact_jobs|fact_job_sources|fact_attempts)\w*$/.test(n));
  return { calls: queueCalls, counts, ms, callMs, facts, factBytes, pagesBefore, queueBytes };
}

/**
 * The reply: the same turns with learning on and off, in alternating blocks, `gapMs` apart (a person reads the
 * reply before writing again). The route's bracket (beginRequest/end) is what the runner yields to.
 */
async function measureReply(
  memo: MemoContext,
  fixture: OpenAIFixtureServer,
  key: string,
  turns: number,
  gapMs: number,
) {
  const db = memo.db;
  const timings = { on: [] as number[], off: [] as number[] };
  const replyLearner = new FactLearner(() => memo, { log: quiet, quietMs: QUIET_MS });
  const turnQueue = new PersistQueue(() => memo, { log: quiet, learner: () => replyLearner });
  fixture.facts.set([{ when: "Turn", facts: [{ text: "The user asked a question." }] }]);
  const callsBeforeTurns = fixture.facts.calls;
  let learnedBetweenTurns = 0;
  const BLOCK = 5;
  for (let b = 0; b * BLOCK < turns * 2; b++) {
    const mode = b % 2 === 0 ? "on" : "off";
    setLearning(db, key, mode === "on");
    for (let i = 0; i < BLOCK; i++) {
      // Calls the runner starts (counted as it starts one; the fixture's own counter sees a call that
      // started in the gap only when its request arrives, which may be after the next turn began).
      const before = replyLearner.status().calls;
      const req = beginRequest();
      let done: Extract<TurnEvent, { type: "done" }> | undefined;
      try {
        for await (const ev of runTurn({ memo, persist: turnQueue }, { message: `Turn ${b}-${i}: what did I buy?` }))
          if (ev.type === "done") done = ev;
      } finally {
        req.end();
      }
      if (!done) throw new Error("a bench turn did not finish");
      if (replyLearner.status().calls !== before) throw new Error("an extraction call started during a reply");
      timings[mode].push(done.timings.totalMs);
      await turnQueue.drain(); // the exchange is stored (and, learning on, queued) as after a real turn
      await new Promise((r) => setTimeout(r, gapMs));
      learnedBetweenTurns = fixture.facts.calls - callsBeforeTurns;
    }
  }
  await replyLearner.idle();
  await replyLearner.stop();
  return { on: stats(timings.on), off: stats(timings.off), learnedBetweenTurns };
}
