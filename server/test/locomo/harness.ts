/**
 * A temp store holding LoCoMo, one space per conversation, written through the product's own write path
 * (memory/store/add.ts addMemories) with the real embedding model behind the eval's disk cache, and questions
 * asked through the search the chat turn uses (memory/retrieval/search.ts). Settings variants are saved the way
 * Settings → Retrieval saves them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import type { MemoContext } from "../../core/context";
import { openDb } from "../../db";
import { search, type SearchResult } from "../../memory/retrieval/search";
import { defaultSettingsFor, saveRetrievalSettings, type RetrievalSettings } from "../../memory/retrieval/settings";
import { addMemories } from "../../memory/store/add";
import { CachedEmbedder, DEFAULT_CACHE_DIR, USE_LITE_CHOICE } from "../retrieval-eval/life-harness";
import type { EmbeddingModelChoice } from "../../embedder/models";
import type { Conversation, Question } from "./locomo";
import { insertFacts } from "../../memory/facts/store";

export interface LocomoStore {
  db: Database.Database;
  ctx: MemoContext;
  embedder: CachedEmbedder;
  model: string;
  /** Memory id → the turn ids its exchange holds. */
  turnsOf: Map<string, string[]>;
  ingestMs: number;
  close(): Promise<void>;
}

export const spaceOf = (c: Conversation) => c.id;

export async function openLocomoStore(
  convs: Conversation[],
  opts: { log?: (m: string) => void; cacheDir?: string; choice?: EmbeddingModelChoice } = {},
): Promise<LocomoStore> {
  const log = opts.log ?? (() => {});
  // Exact vector search: the eval measures ranking, not the approximate index (bench does that).
  process.env.MEMO_ANN = "off";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-locomo-"));
  const opened = openDb(path.join(dir, "eval.db"));
  const embedder = new CachedEmbedder(opts.choice ?? USE_LITE_CHOICE, opts.cacheDir ?? DEFAULT_CACHE_DIR, log);
  const ctx: MemoContext = { db: opened.sqlite, embedder };
  const t0 = Date.now();
  const turnsOf = new Map<string, string[]>();
  try {
    for (const c of convs) {
      for (let i = 0; i < c.exchanges.length; i += 128) {
        const part = c.exchanges.slice(i, i + 128);
        const ids = await addMemories(
          ctx,
          part.map((e) => ({
            text: e.text,
            said: e.said,
            space: spaceOf(c),
            timestamp: e.timestamp,
            kind: "chat" as const,
          })),
        );
        part.forEach((e, j) => {
          for (const id of ids[j]!) turnsOf.set(id, [...(turnsOf.get(id) ?? []), ...e.turns]);
        });
      }
      log(`ingested ${c.id}: ${c.exchanges.length} exchanges`);
    }
  } catch (e) {
    await embedder.close();
    opened.sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    db: opened.sqlite,
    ctx,
    embedder,
    model: embedder.model,
    turnsOf,
    ingestMs: Date.now() - t0,
    async close() {
      await embedder.close();
      opened.sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Patch = Partial<Omit<RetrievalSettings, "weights">> & { weights?: Partial<RetrievalSettings["weights"]> };

/** Save the model's defaults with a patch over them, as Settings → Retrieval would. */
export function useSettings(store: LocomoStore, patch: Patch = {}): RetrievalSettings {
  const base = defaultSettingsFor(store.model);
  return saveRetrievalSettings(store.db, store.model, {
    ...base,
    ...patch,
    weights: { ...base.weights, ...(patch.weights ?? {}) },
  } as RetrievalSettings);
}

/** One question asked in a space the way a chat turn asks it (ranked RANK_DEPTH deep), as of the conversation's end. */
export function ask(
  store: LocomoStore,
  space: string,
  q: Question,
  at: string,
  opts: { k?: number; pool?: number } = {},
): Promise<SearchResult> {
  return search(store.ctx, {
    query: q.question,
    space,
    k: opts.k ?? 10,
    at,
    tzOffsetMinutes: 0,
    forPrompt: true,
    ...(opts.pool ? { options: { pool: opts.pool } } : {}),
  });
}

/** The turn ids each result covers, in rank order. */
export const rankedTurns = (store: LocomoStore, r: SearchResult): string[][] =>
  r.results.map((m) => store.turnsOf.get(m.id) ?? []);

/**
 * LoCoMo's annotated observations as facts (an extractor as good as the annotators), written the way
 * `POST /api/v1/facts` writes them: embedded as documents by the store's embedder, then insertFacts with
 * sources = the exchanges holding the observation's turns and validFrom = its session's date. Returns how many.
 */
export async function addObservationFacts(store: LocomoStore, convs: Conversation[]): Promise<number> {
  let n = 0;
  for (const c of convs) {
    // Turn ids repeat across conversations: map them within this conversation's space only.
    const memoryOf = new Map<string, string>();
    const ids = store.db.prepare("SELECT id FROM memories WHERE space_id = ?").all(spaceOf(c)) as { id: string }[];
    for (const { id } of ids) for (const t of store.turnsOf.get(id) ?? []) memoryOf.set(t, id);
    const items = c.observations.flatMap((o) => {
      const sources = [...new Set(o.turns.flatMap((t) => (memoryOf.has(t) ? [memoryOf.get(t)!] : [])))];
      return sources.length ? [{ text: o.text, sources, validFrom: o.date, origin: "import" as const }] : [];
    });
    for (let i = 0; i < items.length; i += 100) {
      const part = items.slice(i, i + 100);
      const vectors = await store.embedder.embedDocuments(part.map((f) => f.text));
      insertFacts(store.db, spaceOf(c), part, vectors, store.model);
      n += part.length;
    }
  }
  return n;
}
