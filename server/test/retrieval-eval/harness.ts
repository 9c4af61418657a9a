import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import { openDb, type OpenedDb } from "../../db";
import { EmbedderSupervisor } from "../../embedder/supervisor";
import { HttpEmbedClient } from "../../memory/embed-client";
import { buildQueries, type RetrievalQuery } from "../../memory/query-builder";
import { searchWithVectors } from "../../memory/retrieve";
import { defaultSettingsFor, type RetrievalSettings } from "../../memory/settings";
import { addMemories, type MemoContext } from "../../services/memory-service";
import type { EvalDataset, EvalQuestion } from "./dataset";
import type { QuestionType } from "./topics";

/** A temp store filled with the test set through the real service path and the real embedding server. */
export interface EvalStore {
  db: Database.Database;
  ctx: MemoContext;
  model: string;
  /** Test-set memory key → memory id in the store. */
  idOf: Map<string, string>;
  ingestMs: number;
  startMs: number;
  close(): Promise<void>;
}

export interface OpenEvalStoreOptions {
  log?: (m: string) => void;
  /** Keep the store in this folder (default: a temp folder, removed on close). */
  dir?: string;
  /** Reuse a store already in `dir` when it holds exactly this test set (skips ingestion). */
  reuse?: boolean;
}

export async function openEvalStore(ds: EvalDataset, opts: OpenEvalStoreOptions = {}): Promise<EvalStore> {
  const log = opts.log ?? (() => {});
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "memo-eval-"));
  const file = path.join(dir, "eval.db");
  const wipe = () => {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  };
  if (!opts.reuse) wipe();
  let opened: OpenedDb = openDb(file);
  let reused = opts.reuse ? existingIds(opened.sqlite, ds) : null;
  if (opts.reuse && !reused) {
    opened.sqlite.close();
    wipe();
    opened = openDb(file);
    reused = null;
  }
  const t0 = Date.now();
  // The USE-lite server embeds on its event loop, so /health stalls while a batch runs; give it room
  // (the app's defaults kill it after ~4 s of silence, which long batches of long texts can exceed).
  const sup = new EmbedderSupervisor({
    choice: { kind: "use-lite", reason: "retrieval eval" },
    healthTimeoutMs: 10_000,
    maxHealthFailures: 6,
    log: (m) => log(`embedder: ${m}`),
  });
  sup.start();
  const embedder = new HttpEmbedClient(() => sup.ensureHealthy(120_000));
  const ctx: MemoContext = { db: opened.sqlite, embedder, embedderStatus: () => sup.status() };
  const { model } = await embedder.info();
  const startMs = Date.now() - t0;
  log(`embedding server ready (${model}) in ${startMs} ms`);
  const t1 = Date.now();
  const idOf = reused;
  if (idOf) log(`reusing the store in ${dir} (${idOf.size} memories)`);
  const ids = idOf ?? new Map<string, string>();
  if (!idOf) {
    for (const conv of ds.conversations) {
      const tc = Date.now();
      const out = await addMemories(
        ctx,
        conv.memories.map((m) => ({ text: m.text, space: conv.space, timestamp: m.timestamp, kind: "chat" as const })),
      );
      conv.memories.forEach((m, i) => {
        if (out[i]!.length !== 1) throw new Error(`memory ${m.key} became ${out[i]!.length} chunks`);
        ids.set(m.key, out[i]![0]!);
      });
      log(`ingested ${conv.id} (${conv.memories.length} memories) in ${Date.now() - tc} ms`);
    }
  }
  const ingestMs = idOf ? 0 : Date.now() - t1;
  if (!idOf) log(`ingested ${ids.size} memories in ${ingestMs} ms`);
  return {
    db: opened.sqlite,
    ctx,
    model,
    idOf: ids,
    ingestMs,
    startMs,
    async close() {
      await sup.stop();
      opened.sqlite.close();
      if (!opts.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Ids of the test set's memories when the store holds exactly that set, else null. */
function existingIds(db: Database.Database, ds: EvalDataset): Map<string, string> | null {
  const total = (db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n;
  const expected = ds.conversations.reduce((s, c) => s + c.memories.length, 0);
  if (total !== expected) return null;
  const find = db.prepare("SELECT id FROM memories WHERE space_id = ? AND content = ? AND soft_deleted = 0");
  const out = new Map<string, string>();
  for (const c of ds.conversations) {
    for (const m of c.memories) {
      const r = find.get(c.space, m.text) as { id: string } | undefined;
      if (!r) return null;
      out.set(m.key, r.id);
    }
  }
  return out;
}

/** Query-building variants every configuration may ask for; each distinct query text is embedded once. */
export const CONTEXT_VARIANTS = [0, 1, 3] as const;

export class QueryVectorCache {
  private readonly vectors = new Map<string, Float32Array>();
  embedMs = 0;
  constructor(private readonly ctx: MemoContext) {}

  get size(): number {
    return this.vectors.size;
  }

  /**
   * Embed (once) every query text these questions produce under the given query-building variants
   * (default: every context size in CONTEXT_VARIANTS, with and without the anchor query).
   */
  async prepare(
    questions: EvalQuestion[],
    variants: { contextMessages: number; anchorQuery: boolean }[] = CONTEXT_VARIANTS.flatMap((c) => [
      { contextMessages: c, anchorQuery: false },
      { contextMessages: c, anchorQuery: true },
    ]),
  ): Promise<void> {
    const texts = new Set<string>();
    for (const q of questions) {
      for (const v of variants) for (const rq of buildQueries(q.text, q.context, v)) texts.add(rq.text);
    }
    const todo = [...texts].filter((t) => !this.vectors.has(t));
    const t0 = Date.now();
    const vecs = await this.ctx.embedder.embedQueries(todo);
    todo.forEach((t, i) => this.vectors.set(t, vecs[i]!));
    this.embedMs += Date.now() - t0;
  }

  vectorsFor(queries: RetrievalQuery[]): Float32Array[] {
    return queries.map((q) => {
      const v = this.vectors.get(q.text);
      if (!v) throw new Error(`query not embedded: ${q.text.slice(0, 60)}`);
      return v;
    });
  }
}

export type SettingsPatch = Omit<Partial<RetrievalSettings>, "weights"> & { weights?: Partial<RetrievalSettings["weights"]> };

export function applyPatch(base: RetrievalSettings, patch: SettingsPatch): RetrievalSettings {
  return { ...base, ...patch, weights: { ...base.weights, ...(patch.weights ?? {}) } };
}

export interface Figures {
  n: number;
  /** recall@k: share of a question's gold memories in its top k, averaged over questions. */
  recall: number;
  /** recall@6: the same in the top 6 (what the prompt gets with the default topN). */
  recall6: number;
  /** MRR@k: 1 / rank of the first gold memory (0 when not in the top k), averaged. */
  mrr: number;
}

export interface ConfigResult extends Figures {
  name: string;
  group: string;
  settings: RetrievalSettings;
  perType: Record<QuestionType, Figures>;
  /** Per question: 1-based rank of the first gold memory in the top k, or 0 when absent. */
  ranks: number[];
  /** Mean results returned (of k) for answerable questions, and for unanswerable ones (lower = less noise). */
  returned: number;
  returnedUnanswerable: number | null;
  ms: number;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

/** Ranked ids of one question under one configuration. */
export function rankedIds(store: EvalStore, cache: QueryVectorCache, q: EvalQuestion, settings: RetrievalSettings, k: number): string[] {
  return search(store, cache, q, settings, k).results.map((r) => r.id);
}

export function search(store: EvalStore, cache: QueryVectorCache, q: EvalQuestion, settings: RetrievalSettings, k: number) {
  const queries = buildQueries(q.text, q.context, { contextMessages: settings.contextMessages, anchorQuery: settings.anchorQuery });
  return searchWithVectors(store.db, { query: q.text, spaceId: q.space, k, context: q.context }, settings, queries, cache.vectorsFor(queries));
}

/** recall@k (share of a question's gold memories in its top k, averaged) and MRR@k over the questions. */
export function runConfig(
  store: EvalStore,
  cache: QueryVectorCache,
  questions: EvalQuestion[],
  settings: RetrievalSettings,
  meta: { name: string; group: string },
  k = 10,
  unanswerable: EvalQuestion[] = [],
): ConfigResult {
  const t0 = process.hrtime.bigint();
  const ranks: number[] = [];
  const recalls: number[] = [];
  const recalls6: number[] = [];
  let returned = 0;
  for (const q of questions) {
    const ids = rankedIds(store, cache, q, settings, k);
    returned += ids.length;
    const gold = q.gold.map((g) => store.idOf.get(g)!);
    const found = gold.filter((g) => ids.includes(g)).length;
    recalls.push(found / gold.length);
    recalls6.push(gold.filter((g) => ids.slice(0, 6).includes(g)).length / gold.length);
    const first = ids.findIndex((id) => gold.includes(id));
    ranks.push(first + 1);
  }
  let returnedNone = 0;
  for (const q of unanswerable) returnedNone += rankedIds(store, cache, q, settings, k).length;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const figures = (idx: number[]): Figures => ({
    n: idx.length,
    recall: idx.length ? round(idx.reduce((s, i) => s + recalls[i]!, 0) / idx.length) : 0,
    recall6: idx.length ? round(idx.reduce((s, i) => s + recalls6[i]!, 0) / idx.length) : 0,
    mrr: idx.length ? round(idx.reduce((s, i) => s + (ranks[i]! ? 1 / ranks[i]! : 0), 0) / idx.length) : 0,
  });
  const all = questions.map((_, i) => i);
  const perType = {} as Record<QuestionType, Figures>;
  for (const t of ["paraphrase", "keyword", "followup", "long"] as const) perType[t] = figures(all.filter((i) => questions[i]!.type === t));
  return {
    ...meta,
    settings,
    ...figures(all),
    perType,
    ranks,
    returned: round(returned / Math.max(1, questions.length)),
    returnedUnanswerable: unanswerable.length ? round(returnedNone / unanswerable.length) : null,
    ms: Math.round(ms),
  };
}

/** The USE-lite defaults of settings.ts (what the app uses offline). */
export function useLiteDefaults(model = "universal-sentence-encoder-lite"): RetrievalSettings {
  return defaultSettingsFor(model);
}

/** Single legs: only one list kind, no quality filter (the leg as it is). */
export const LEG_VECTOR: SettingsPatch = { weights: { vector: 1, fts: 0 }, qualityFilter: false };
export const LEG_KEYWORD: SettingsPatch = { weights: { vector: 0, fts: 1 }, qualityFilter: false };
