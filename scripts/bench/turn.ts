/**
 * The chat turn's retrieval path as `npm run bench` times it: the app's own entry point
 * (recallForPrompt: query building, both legs for every query, fusion, filter, packing, promotion),
 * with an embedder that hands back the query vectors the benchmark drew, so that query embedding, a
 * model's cost rather than the pipeline's, is left out of the figure (and measured apart).
 */
import type Database from "better-sqlite3";
import { recallForPrompt } from "../../server/chat/turn-recall";
import type { Embedder } from "../../server/core/context";
import { factBlock } from "../../server/memory/retrieval/fact-block";
import { estimateTokens } from "../../server/memory/retrieval/token-estimate";
import {
  defaultSettingsFor,
  saveRetrievalSettings,
  type RetrievalSettings,
} from "../../server/memory/retrieval/settings";
import type { MemoContext } from "../../server/core/context";
import { STAGES, StageTimer, type Stage } from "../../server/memory/retrieval/stages";
import { insertMemories, purgeMemories } from "../../server/memory/store";

/** Serves precomputed query vectors in order; counts the time spent inside it. */
export class PrecomputedQueryEmbedder implements Embedder {
  next: Float32Array[] = [];
  ms = 0;
  calls = 0;
  constructor(
    private readonly model: string,
    private readonly dim: number,
  ) {}
  async info() {
    return { model: this.model, dim: this.dim };
  }
  async embedQueries(texts: string[]): Promise<Float32Array[]> {
    const t = performance.now();
    this.calls += texts.length;
    if (texts.length > this.next.length)
      throw new Error(`the benchmark prepared ${this.next.length} query vectors, the turn asked for ${texts.length}`);
    const out = this.next.slice(0, texts.length);
    this.ms += performance.now() - t;
    return out;
  }
  async embedDocuments(): Promise<Float32Array[]> {
    throw new Error("the turn benchmark stores nothing");
  }
  async tokenize(): Promise<number[]> {
    throw new Error("the turn benchmark tokenizes nothing");
  }
}

export interface BenchTurn {
  message: string;
  context: string[];
  /** Vectors for the turn's queries, in the order buildQueries makes them (main, anchor). */
  vectors: Float32Array[];
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
  return { p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3) };
}

/** What a run of turns measured, turn by turn (timeTurns summarises it; runs of the same turns can be merged). */
export interface TurnSamples {
  /** ms per timed turn (the first 5 of a run warm caches and are not timed). */
  ms: number[];
  perStage: Map<Stage, number[]>;
  turns: number;
  queries: number;
  recalled: number;
  facts: number;
  factTokens: number;
  blockTokens: number;
}

export const noSamples = (): TurnSamples => ({
  ms: [],
  perStage: new Map(STAGES.map((s) => [s, []])),
  turns: 0,
  queries: 0,
  recalled: 0,
  facts: 0,
  factTokens: 0,
  blockTokens: 0,
});

/**
 * Time `turns` through recallForPrompt with the retrieval settings of `profile` (saved as the store's
 * settings for its model, as a person would in Settings), `overrides` laid over them, adding to `into`.
 * As in a conversation, each turn's exchange is written before the next turn (untimed; purged at the end)
 * and the next turn comes `gapMs` later on the process's clock (Date.now is advanced, nothing waits): every
 * turn finds the store changed and the clock moved since the last, as a real one's caches do. (A turn
 * loop with neither hid the caches that expire between a person's turns: 30 s apart, a turn at 100K
 * memories cost twice the loop's figure, and ten minutes apart four times; docs/benchmarks.md.)
 */
export async function sampleTurns(
  db: Database.Database,
  model: string,
  dim: number,
  space: string,
  profile: string,
  turns: BenchTurn[],
  gapMs = 30_000,
  overrides: Partial<RetrievalSettings> = {},
  into: TurnSamples = noSamples(),
): Promise<TurnSamples> {
  saveRetrievalSettings(db, model, { ...defaultSettingsFor(profile), ...overrides });
  const embedder = new PrecomputedQueryEmbedder(model, dim);
  const memo: MemoContext = { db, embedder };
  const written: string[] = [];
  const clock = Date.now;
  let later = 0;
  Date.now = () => clock() + later;
  try {
    for (const [i, t] of turns.entries()) {
      later += gapMs;
      embedder.next = t.vectors;
      embedder.ms = 0;
      const timer = new StageTimer();
      const t0 = performance.now();
      const r = await recallForPrompt(memo, { space, query: t.message, context: t.context }, { timer });
      const ms = performance.now() - t0 - embedder.ms;
      if (r.error) throw new Error(`turn recall failed: ${r.error}`);
      if (i >= 5) {
        // the first turns warm statement caches and the JIT
        into.ms.push(ms);
        for (const s of STAGES) into.perStage.get(s)!.push(s === "embed" ? timer.ms[s] - embedder.ms : timer.ms[s]);
      }
      into.turns++;
      into.queries += r.queries.length;
      into.recalled += r.memories.length;
      into.facts += r.facts.length;
      // The same lines as the block's "[What I know]" (packRecalled built it from these facts within its budget).
      into.factTokens += r.facts.length ? estimateTokens(factBlock(r.facts, Number.MAX_SAFE_INTEGER).block) : 0;
      into.blockTokens += r.block ? estimateTokens(r.block) : 0;
      written.push(...insertMemories(db, [{ spaceId: space, content: t.message }], [t.vectors[0]!], model));
    }
  } finally {
    Date.now = clock;
  }
  purgeMemories(db, written);
  db.prepare("DELETE FROM settings WHERE key = ?").run(`retrieval:${model}`);
  return into;
}

/**
 * p50/p95 in ms, query embedding excluded; `stages`: the p50 of each stage of the pipeline
 * (server/memory/retrieval/stages.ts) over the same turns; per turn (mean) the memories packed, the facts the
 * block states and the tokens of its "[What I know]" and of the whole block.
 */
export function summarise(x: TurnSamples) {
  const per = (v: number, digits: number) => +(v / x.turns).toFixed(digits);
  return {
    ...stats(x.ms),
    queriesPerTurn: per(x.queries, 2),
    packedPerTurn: per(x.recalled, 2),
    factsPerTurn: per(x.facts, 2),
    /** Tokens of the block's "[What I know]" and of the whole block (estimateTokens, as packing counts them). */
    factTokensPerTurn: per(x.factTokens, 1),
    blockTokensPerTurn: per(x.blockTokens, 1),
    /** p50 ms of each stage; `embed` is what is left of it once the precomputed vectors' hand-over is taken out. */
    stages: Object.fromEntries(STAGES.map((s) => [s, stats(x.perStage.get(s)!).p50])) as Record<Stage, number>,
  };
}

/** sampleTurns once, summarised. */
export async function timeTurns(...args: Parameters<typeof sampleTurns>) {
  return summarise(await sampleTurns(...args));
}
