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
import { estimateTokens } from "../../server/memory/retrieval/pack";
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

/**
 * Time `turns` through recallForPrompt with the retrieval settings of `profile` (saved as the store's
 * settings for its model, as a person would in Settings), `overrides` laid over them. Returns p50/p95 in ms,
 * query embedding excluded, `stages`: the p50 of each stage of the pipeline (server/memory/retrieval/stages.ts)
 * over the same turns, and per turn (mean) the facts the block states and the tokens of its `[What I know]`
 * and of the whole block.
 * As in a conversation, each turn's exchange is written before the next turn (untimed; purged at the end)
 * and the next turn comes `gapMs` later on the process's clock (Date.now is advanced, nothing waits): every
 * turn finds the store changed and the clock moved since the last, as a real one's caches do. (A turn
 * loop with neither hid the caches that expire between a person's turns: 30 s apart, a turn at 100K
 * memories cost twice the loop's figure, and ten minutes apart four times; docs/benchmarks.md.)
 */
export async function timeTurns(
  db: Database.Database,
  model: string,
  dim: number,
  space: string,
  profile: string,
  turns: BenchTurn[],
  gapMs = 30_000,
  overrides: Partial<RetrievalSettings> = {},
) {
  saveRetrievalSettings(db, model, { ...defaultSettingsFor(profile), ...overrides });
  const embedder = new PrecomputedQueryEmbedder(model, dim);
  const memo: MemoContext = { db, embedder };
  const times: number[] = [];
  const perStage = new Map<Stage, number[]>(STAGES.map((s) => [s, []]));
  let queries = 0;
  let recalled = 0;
  let facts = 0;
  let factTokens = 0;
  let blockTokens = 0;
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
        times.push(ms);
        for (const s of STAGES) perStage.get(s)!.push(s === "embed" ? timer.ms[s] - embedder.ms : timer.ms[s]);
      }
      queries += r.queries.length;
      recalled += r.memories.length;
      facts += r.facts.length;
      // The same lines as the block's "[What I know]" (packRecalled built it from these facts within its budget).
      factTokens += r.facts.length ? estimateTokens(factBlock(r.facts, Number.MAX_SAFE_INTEGER).block) : 0;
      blockTokens += r.block ? estimateTokens(r.block) : 0;
      written.push(...insertMemories(db, [{ spaceId: space, content: t.message }], [t.vectors[0]!], model));
    }
  } finally {
    Date.now = clock;
  }
  purgeMemories(db, written);
  db.prepare("DELETE FROM settings WHERE key = ?").run(`retrieval:${model}`);
  return {
    ...stats(times),
    queriesPerTurn: +(queries / turns.length).toFixed(2),
    packedPerTurn: +(recalled / turns.length).toFixed(2),
    factsPerTurn: +(facts / turns.length).toFixed(2),
    /** Tokens of the block's "[What I know]" and of the whole block (estimateTokens, as packing counts them). */
    factTokensPerTurn: +(factTokens / turns.length).toFixed(1),
    blockTokensPerTurn: +(blockTokens / turns.length).toFixed(1),
    /** p50 ms of each stage; `embed` is what is left of it once the precomputed vectors' hand-over is taken out. */
    stages: Object.fromEntries(STAGES.map((s) => [s, stats(perStage.get(s)!).p50])) as Record<Stage, number>,
  };
}
