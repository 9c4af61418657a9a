/**
 * The live loop (issue 47): Memo in use, not on a static transcript. A person states 32 things about their
 * life, each in its own chat; asks about each in a new chat in other words (twice: the same question asked
 * again, after the first asking was stored); changes every one of them in new chats; and asks again in other
 * words (twice), with unrelated turns between. Every turn goes through the real chat path (runTurn: recall,
 * prompt, the stored exchange, its learning job) and every exchange through the real learning path (the
 * runner, the memo_facts request, reconcile, apply) against the fixture facts model — a TEST DOUBLE
 * answering from a script (server/test/fixture-facts-model.ts) — over the real bundled embedder (USE-lite,
 * in process) and the default retrieval settings.
 *
 * The chat model is a TEST DOUBLE too (server/test/assistant-doubles.ts): one that restates what it was
 * given, one that echoes all of it; and the facts double is either careful (it reads what the person said)
 * or NAIVE (it learns from the whole exchange, the assistant's words too — so an echoed old statement
 * teaches its old fact again unless Memo stops it).
 *
 * Per run: answered right before and after the change (the current value first in the reply; for the echo,
 * first in what it was given), the current value anywhere in the prompt, a replaced value presented as
 * current (in the answer; in what Memo states it knows), and replaced facts current again at the end.
 * Targets: ≥ 95 % right before and after, 0 stale presented as current, 0 resurrected.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { listFacts } from "../memory/facts/store";
import type { FixtureMessage } from "../../e2e/support/openai-fixture";
import { firstRecalled, knownLines, memoryPart } from "./assistant-doubles";
import { inProcessEmbedder } from "./in-process-embedder";
import { recordEval } from "./eval-report";
import { learningHarness } from "./learning-harness";
import { LOOP_SCENARIOS, type LoopScenario, UNRELATED_TURNS } from "./live-loop-scenarios";

export type Reply = (messages: FixtureMessage[]) => string;

interface Asked {
  s: LoopScenario;
  phase: "before" | "after";
  reply: string;
  memory: string;
}

export interface LoopMetrics {
  run: string;
  asks: number;
  rightBefore: number;
  rightAfter: number;
  currentInPromptBefore: number;
  currentInPromptAfter: number;
  /** The prompt leads with the current value: its first stated fact (else its first recalled memory) gives it. */
  promptLeadsBefore: number;
  promptLeadsAfter: number;
  /** Asks after the change whose answer leads with the replaced value. */
  staleAnswer: number;
  /** Asks after the change whose [What I know] states the replaced value as current. */
  staleKnown: number;
  /** Scenarios whose replaced value is a current fact again at the end. */
  resurrected: string[];
  /** Scenarios whose changed value is not the current fact at the end. */
  notLearned: number;
  /** Scenarios whose first value was never replaced (the change was learned beside it). */
  notReplaced: string[];
}

const has = (t: string, v: string) => t.toLowerCase().includes(v.toLowerCase());
const at = (t: string, v: string) => t.toLowerCase().indexOf(v.toLowerCase());
/** The answer gives `cur`, and before `old` where it gives both. */
const leadsWith = (t: string, cur: string, old: string | null) =>
  has(t, cur) && (old === null || !has(t, old) || at(t, cur) < at(t, old));

/** The first thing the prompt's memory part states: its first current fact, else its first recalled memory. */
const leadLine = (memory: string) => knownLines(memory)[0] ?? firstRecalled(memory) ?? "";

/**
 * What a run goes through: the scenarios, and the unrelated turns before the first asking and before the
 * second. The eval (`npm run eval:live-loop`) runs all of them; the smoke in `npm test` a few.
 */
export interface LoopPlan {
  scenarios: LoopScenario[];
  unrelatedBefore: string[];
  unrelatedAfter: string[];
}

export const FULL_PLAN: LoopPlan = {
  scenarios: LOOP_SCENARIOS,
  unrelatedBefore: UNRELATED_TURNS.slice(0, 3),
  unrelatedAfter: UNRELATED_TURNS.slice(3),
};

export async function runLoop(run: string, reply: Reply, naive: boolean, plan = FULL_PLAN): Promise<LoopMetrics> {
  const { scenarios } = plan;
  const h = await learningHarness({ embedder: await inProcessEmbedder({ remember: true }) });
  try {
    let given: FixtureMessage[] = [];
    h.fixture.replyWith = (m) => {
      given = m;
      return reply(m);
    };
    h.fixture.facts.readsWholeExchange = naive;
    h.fixture.facts.set(
      scenarios.flatMap((s) => [
        { when: s.state.say, facts: [{ text: s.state.fact }] },
        { when: s.change.say, facts: [{ text: s.change.fact, replaces: [s.state.fact] }] },
      ]),
    );
    const say = async (message: string) => {
      given = [];
      const events = await h.chat(message);
      await h.settle();
      const done = events.find((e) => e.type === "done");
      assert.ok(done && done.type === "done", `a reply to "${message}": ${JSON.stringify(events.at(-1))}`);
      return { reply: done.message.content, memory: memoryPart(given) };
    };
    const asked: Asked[] = [];
    const ask = async (phase: Asked["phase"]) => {
      for (const s of scenarios)
        for (let i = 0; i < 2; i++) {
          const r = await say(phase === "before" ? s.askBefore : s.askAfter);
          asked.push({ s, phase, ...r });
        }
    };
    for (const s of scenarios) await say(s.state.say);
    for (const u of plan.unrelatedBefore) await say(u);
    await ask("before");
    for (const s of scenarios) await say(s.change.say);
    for (const u of plan.unrelatedAfter) await say(u);
    await ask("after");

    const before = asked.filter((a) => a.phase === "before");
    const later = asked.filter((a) => a.phase === "after");
    const share = (xs: Asked[], f: (a: Asked) => boolean) => xs.filter(f).length / xs.length;
    const current = listFacts(h.db, { spaceId: "personal" }).map((f) => f.text);
    const replaced = (text: string) =>
      Boolean(h.db.prepare("SELECT 1 FROM facts WHERE text = ? AND superseded_by IS NOT NULL").get(text));
    return {
      run,
      asks: asked.length,
      rightBefore: share(before, (a) => leadsWith(a.reply, a.s.was, null)),
      rightAfter: share(later, (a) => leadsWith(a.reply, a.s.now, a.s.was)),
      currentInPromptBefore: share(before, (a) => has(a.memory, a.s.was)),
      currentInPromptAfter: share(later, (a) => has(a.memory, a.s.now)),
      promptLeadsBefore: share(before, (a) => has(leadLine(a.memory), a.s.was)),
      promptLeadsAfter: share(later, (a) => has(leadLine(a.memory), a.s.now)),
      staleAnswer: later.filter((a) => has(a.reply, a.s.was) && !leadsWith(a.reply, a.s.now, a.s.was)).length,
      staleKnown: later.filter((a) => knownLines(a.memory).some((l) => has(l, a.s.was))).length,
      resurrected: scenarios
        .filter((s) => replaced(s.state.fact) && current.some((t) => has(t, s.was)))
        .map((s) => s.topic),
      notReplaced: scenarios.filter((s) => !replaced(s.state.fact)).map((s) => s.topic),
      notLearned: scenarios.filter((s) => !current.includes(s.change.fact)).length,
    };
  } finally {
    await h.close();
  }
}

export const pct = (x: number) => `${(x * 100).toFixed(0)} %`;

export function metricsLine(m: LoopMetrics): string {
  return (
    `${m.run.padEnd(26)} right before ${pct(m.rightBefore).padStart(5)}, after ${pct(m.rightAfter).padStart(5)}; ` +
    `current in prompt before ${pct(m.currentInPromptBefore).padStart(5)}, after ${pct(m.currentInPromptAfter).padStart(5)}; ` +
    `prompt leads with it before ${pct(m.promptLeadsBefore).padStart(5)}, after ${pct(m.promptLeadsAfter).padStart(5)}; ` +
    `stale as current: answer ${m.staleAnswer}, known ${m.staleKnown}; resurrected ${m.resurrected.length}${m.resurrected.length ? ` (${m.resurrected.join(", ")})` : ""}; not learned ${m.notLearned}, not replaced ${m.notReplaced.length}${m.notReplaced.length ? ` (${m.notReplaced.join(", ")})` : ""}`
  );
}

/** One run of the loop, its metrics printed (with the gap to the issue's 95 % target when there is one). */
export async function measureLoop(run: string, reply: Reply, naive: boolean, plan = FULL_PLAN): Promise<LoopMetrics> {
  if (plan === FULL_PLAN) assert.ok(LOOP_SCENARIOS.length >= 30);
  const m = await runLoop(run, reply, naive, plan);
  console.log(`live loop, ${plan.scenarios.length} scenarios, ${m.asks} asks: ${metricsLine(m)}`);
  if (plan === FULL_PLAN && (m.rightBefore < 0.95 || m.rightAfter < 0.95))
    console.log(`live loop, ${run}: below the issue's target of 95 % right before and after`);
  return m;
}

/** What must hold: nothing resurrected, nothing stale stated as current or answered, every change learned. */
export function assertLoopHolds(m: LoopMetrics): void {
  assert.equal(m.resurrected.length, 0, metricsLine(m));
  assert.equal(m.staleKnown, 0, metricsLine(m));
  assert.equal(m.staleAnswer, 0, metricsLine(m));
  assert.equal(m.notLearned, 0, metricsLine(m));
  assert.equal(m.notReplaced.length, 0, metricsLine(m));
}

/**
 * The answering rates no lower than `floor` — the rates measured when the recall side landed (issue 47), so a
 * regression fails. The issue's target is ≥ 95 % before and after; it is not met with the offline encoder
 * (docs/facts.md#the-live-loop says why).
 */
export function assertLoopFloor(m: LoopMetrics, floor: { before: number; after: number }): void {
  assert.ok(m.rightBefore >= floor.before, metricsLine(m));
  assert.ok(m.rightAfter >= floor.after, metricsLine(m));
}

/** The run's figures and the bounds the two checks above hold them to, for the eval's JSON report. */
export function recordLoop(m: LoopMetrics, floor: { before: number; after: number }): void {
  recordEval({
    run: m.run,
    figures: { ...m },
    atLeast: { rightBefore: floor.before, rightAfter: floor.after },
    atMost: { resurrected: 0, staleKnown: 0, staleAnswer: 0, notLearned: 0, notReplaced: 0 },
  });
}

/** One run of the eval: its assistant double, its learner and its answering floors. */
export interface LoopEvalRun {
  run: string;
  reply: Reply;
  naive: boolean;
  floor: { before: number; after: number };
}

/** The eval's suites for these runs (live-loop.eval.ts, live-loop-naive.eval.ts): measured, reported, checked. */
export function loopEvalSuites(runs: LoopEvalRun[]): void {
  for (const r of runs)
    describe(`live loop — ${r.run}`, () => {
      let m: LoopMetrics;
      before(async () => {
        m = await measureLoop(r.run, r.reply, r.naive);
        recordLoop(m, r.floor);
      });
      test("no replaced fact is current again, none stated as current, every change learned", () => assertLoopHolds(m));
      test("answered right no less often than when the recall side landed", () => assertLoopFloor(m, r.floor));
    });
}
