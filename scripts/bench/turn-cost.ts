/**
 * `turnCost` in `npm run bench` (issue 56, "a straight turn"): what one whole chat turn costs this process —
 * the reply (runTurn: recall, the provider, storing the reply), writing the exchange as memory (the persist
 * queue) and learning facts from it (the runner, in the quiet after it) — in texts embedded and CPU time.
 *
 * The provider is the fixture model (the OpenAI-compatible TEST DOUBLE on loopback: a short reply, memo_facts
 * answered from a script), the embedder the real bundled one (USE-lite in process, which takes no task
 * prefixes), on a fresh temporary store. Per turn: the texts embedded, by kind (queries: recall and the
 * learner's look-up of known facts; documents: the exchange's chunks and the learned facts), and
 * process.cpuUsage (user + system, every thread of the process: the embedding worker and the fixture
 * server included) from the request to the learner's idle. The first `warm` turns are not counted.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { FactLearner } from "../../server/chat/fact-learner";
import { PersistQueue } from "../../server/chat/exchange-queue";
import { providerResolutions, saveProviderSettings } from "../../server/chat/providers";
import { runTurn } from "../../server/chat/turn";
import type { MemoContext } from "../../server/core/context";
import { openDb } from "../../server/db";
import { inProcessEmbedder } from "../../server/test/in-process-embedder";

/**
 * The same measurement on main before issue 56's straight turn (510fd80, 2 cores, load ~3.9 — other runs beside
 * it), by `npm run bench -- --sizes 0 --no-embed-cost --no-extraction`: printed beside the current figures.
 */
const BEFORE = {
  commit: "510fd80",
  command: "npm run bench -- --sizes 0 --no-embed-cost --no-extraction",
  embeddedTextsPerTurn: 6.95,
  embeddedQueriesPerTurn: 4,
  embeddedDocumentsPerTurn: 2.95,
  cpuMsPerTurn: { p50: 198.41, p95: 221.41 },
  providerResolutionsPerTurn: 4,
};

const CITIES = ["Lisbon", "Porto", "Berlin", "Madrid", "Oslo", "Riga", "Turin", "Ghent"];

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
  return { p50: +q(0.5).toFixed(2), p95: +q(0.95).toFixed(2) };
}

export async function turnCost(o: { turns: number; warm?: number }) {
  const warm = o.warm ?? 3;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-turn-"));
  const opened = openDb(path.join(dir, "memory.db"));
  const embedder = await inProcessEmbedder();
  const memo: MemoContext = { db: opened.sqlite, embedder };
  const fixture = await OpenAIFixtureServer.start();
  const quiet = () => undefined;
  try {
    const db = opened.sqlite;
    saveProviderSettings(db, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
    // A short reply, as most are: the exchange is one stored chunk.
    fixture.replyWith = (messages) => `Noted: ${String(messages.at(-1)?.content ?? "").slice(0, 80)}`;
    const messages = Array.from({ length: o.turns + warm }, (_, i) => {
      const city = CITIES[i % CITIES.length]!;
      return { text: `Note ${i}: I moved to ${city} last week and I bought a bike called item-${i}.`, city, i };
    });
    fixture.facts.set(
      messages.map((m) => ({
        when: `Note ${m.i}:`,
        facts: [
          { text: `The user lives in ${m.city}.`, replaces: ["The user lives in"] },
          { text: `The user owns item-${m.i}.` },
        ],
      })),
    );
    const learner = new FactLearner(() => memo, { log: quiet, quietMs: 0 });
    const persist = new PersistQueue(() => memo, { log: quiet, learner: () => learner });
    const per = {
      queries: [] as number[],
      documents: [] as number[],
      texts: [] as number[],
      cpuMs: [] as number[],
      resolutions: [] as number[],
    };
    let conversationId: string | undefined;
    for (const [i, m] of messages.entries()) {
      const calls0 = embedder.calls.length;
      const resolved0 = providerResolutions();
      const cpu0 = process.cpuUsage();
      for await (const ev of runTurn({ memo, persist }, { conversationId, message: m.text })) {
        if (ev.type === "start") conversationId = ev.conversation.id;
        if (ev.type === "error") throw new Error(`a bench turn failed: ${ev.message}`);
      }
      await persist.drain();
      await learner.idle();
      const cpu = process.cpuUsage(cpu0);
      if (i < warm) continue;
      const calls = embedder.calls.slice(calls0);
      const count = (kind: "query" | "document") =>
        calls.filter((c) => c.kind === kind).reduce((n, c) => n + c.texts.length, 0);
      per.queries.push(count("query"));
      per.documents.push(count("document"));
      per.texts.push(count("query") + count("document"));
      per.cpuMs.push((cpu.user + cpu.system) / 1000);
      per.resolutions.push(providerResolutions() - resolved0);
    }
    await learner.stop();
    const mean = (xs: number[]) => +(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)).toFixed(2);
    const learned = (db.prepare("SELECT count(*) AS n FROM facts").get() as { n: number }).n;
    return {
      turns: o.turns,
      embedder: `${(await embedder.info()).model} (in process, no task prefixes)`,
      model: "fixture (TEST DOUBLE: a short reply, memo_facts answered from a script)",
      factsLearned: learned,
      /** Texts embedded per turn (mean): every request's texts, by kind. */
      embeddedTextsPerTurn: mean(per.texts),
      embeddedQueriesPerTurn: mean(per.queries),
      embeddedDocumentsPerTurn: mean(per.documents),
      /** process.cpuUsage per turn, ms (user + system, all threads), the reply through the learner's idle. */
      cpuMsPerTurn: stats(per.cpuMs),
      /** resolveProviderConfig calls per turn (the turn and its write: one; the runner: one per claim). */
      providerResolutionsPerTurn: mean(per.resolutions),
      note: "a whole turn: runTurn, the exchange written (persist queue), its facts learned (runner); first turns not counted",
      before: BEFORE,
    };
  } finally {
    await fixture.close();
    opened.sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
