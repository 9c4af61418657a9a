/**
 * Test support for learning facts: a real store, a deterministic in-process embedder (hashed bags of words:
 * TEST DOUBLE), the OpenAI-compatible TEST DOUBLE (e2e/support/openai-fixture.ts, whose memo_facts answers
 * come from a script: server/test/fixture-facts-model.ts) configured as the chat provider on loopback, and
 * the real persistence queue, chat turn and learning runner over them.
 */
import type Database from "better-sqlite3";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { FactLearner, type FactLearnerOptions } from "../chat/fact-learner";
import { PersistQueue } from "../chat/exchange-queue";
import { saveProviderSettings } from "../chat/providers";
import { runTurn, type TurnEvent, type TurnInput } from "../chat/turn";
import type { Embedder, MemoContext } from "../core/context";
import { listFacts } from "../memory/facts/store";
import { openTempStore, type TempStore } from "./temp-store";
import { TestDimEmbedder } from "./test-dim-embedder";

export interface LearningHarness {
  store: TempStore;
  memo: MemoContext;
  db: Database.Database;
  fixture: OpenAIFixtureServer;
  queue: PersistQueue;
  learner: FactLearner;
  /** The learner's clock: real time plus `ahead` ms (tests jump past a back-off). */
  clock: { ahead: number; now(): number };
  /** One chat turn, its exchange persisted (the learner is woken as the app's would be). */
  chat(message: string, input?: Partial<TurnInput>): Promise<TurnEvent[]>;
  /** Wait for persistence and for learning to finish what is due. */
  settle(): Promise<void>;
  /** The current facts' texts of a space, sorted. */
  currentTexts(space?: string): string[];
  /** memo_facts calls the fixture answered. */
  factCalls(): number;
  close(): Promise<void>;
}

const ENV = ["MEMO_PROVIDER", "MEMO_OPENAI_BASE_URL", "MEMO_OPENAI_API_KEY", "MEMO_OPENAI_MODEL", "MEMO_CHAT_MODEL"];

export async function learningHarness(
  opts: { learner?: FactLearnerOptions; fixture?: OpenAIFixtureServer; embedder?: Embedder } = {},
): Promise<LearningHarness> {
  const saved = new Map(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
  const store = openTempStore();
  const memo: MemoContext = { db: store.sqlite, embedder: opts.embedder ?? new TestDimEmbedder("test-16d-a") };
  const fixture = opts.fixture ?? (await OpenAIFixtureServer.start());
  saveProviderSettings(store.sqlite, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
  const clock = {
    ahead: 0,
    now() {
      return Date.now() + this.ahead;
    },
  };
  const quiet = () => undefined;
  const learner = new FactLearner(() => memo, {
    baseDelayMs: 1000,
    maxDelayMs: 60_000,
    log: quiet,
    now: () => clock.now(),
    quietMs: 0, // these tests are not about yielding to replies (fact-learner.test.ts has its own)
    ...opts.learner,
  });
  const queue = new PersistQueue(() => memo, { baseDelayMs: 5, maxDelayMs: 10, log: quiet, learner: () => learner });
  const h: LearningHarness = {
    store,
    memo,
    db: store.sqlite,
    fixture,
    queue,
    learner,
    clock,
    async chat(message, input = {}) {
      const events: TurnEvent[] = [];
      for await (const ev of runTurn({ memo, persist: queue }, { message, ...input })) events.push(ev);
      await queue.drain();
      return events;
    },
    async settle() {
      await queue.drain();
      await learner.idle();
    },
    currentTexts(space = "personal") {
      return listFacts(store.sqlite, { spaceId: space })
        .map((f) => f.text)
        .sort();
    },
    factCalls: () => fixture.facts.calls,
    async close() {
      await learner.stop();
      if (!opts.fixture) await fixture.close();
      store.close();
      for (const [k, v] of saved)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    },
  };
  return h;
}
