/**
 * Facts (issue 42): the operations the REST routes (app/api/v1/facts/), the tRPC router
 * (server/api/routers/facts.ts) and MCP's list_facts call. Inputs are checked by the schemas here, then by
 * the store (server/memory/facts/store.ts), which writes nothing when any item is bad. Another person's fact
 * id answers exactly like a missing one: 404, `fact <id> not found`.
 */
import { z } from "zod";
import { isMine, mineScan, mySpace, spaceRef } from "../core/acting";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { DEFAULT_SPACE } from "../core/space-name";
import { isoDateTime, MAX_QUERY_CHARS, sharedSpaceName } from "../core/validators";
import { activeModel } from "../memory/index/model-check";
import { backgroundOf, queryBackground } from "../memory/retrieval/background";
import {
  nowIso,
  reindexTarget,
  requireReadableSpace,
  restoreMemories,
  softDeleteMemories,
  whoseOf,
  type Whose,
} from "../memory/store";
import {
  confirmFact,
  deleteFacts,
  factHistory,
  getWritableFact,
  insertFacts,
  isCurrent,
  isStrandedDeletedFact,
  listFacts,
  MAX_FACT_CHARS,
  MAX_FACT_REPLACES,
  MAX_FACT_SOURCES,
  MAX_FACTS_PER_CALL,
  restoreFacts,
  searchFacts,
  spacesWithFacts,
  type FactKey,
  type FactOrigin,
  type FactRow,
  type NewFact,
} from "../memory/facts/store";

const noNul = (s: string) => !s.includes("\u0000");

export const factId = z.string().uuid("id must be a fact id (UUID)");

export const factText = z
  .string()
  .refine((s) => s.trim().length > 0, "text must not be empty")
  .refine((s) => s.trim().length <= MAX_FACT_CHARS, `text must be at most ${MAX_FACT_CHARS} characters`)
  .refine(noNul, "text must not contain NUL characters");

export const newFactItem = z.strictObject({
  text: factText,
  sources: z
    .array(z.string().uuid("sources must be memory ids"))
    .min(1, "sources must name at least one memory")
    .max(MAX_FACT_SOURCES, `at most ${MAX_FACT_SOURCES} sources per fact`),
  validFrom: isoDateTime("validFrom").optional(),
  replaces: z
    .array(z.string().uuid("replaces must be fact ids"))
    .max(MAX_FACT_REPLACES, `a fact replaces at most ${MAX_FACT_REPLACES} facts`)
    .optional(),
});

export const addFactsInput = z.strictObject({
  /** The person's own space or one shared with them read-write ('<owner id>~<name>'); default `personal`. */
  space: sharedSpaceName.optional(),
  items: z
    .array(newFactItem)
    .min(1, "items must not be empty")
    .max(MAX_FACTS_PER_CALL, `at most ${MAX_FACTS_PER_CALL} facts per request`),
});
export type AddFactsInput = z.infer<typeof addFactsInput>;

export const listFactsInput = z.strictObject({
  /** One space (own or shared with the person); absent: all of the person's own spaces. */
  space: sharedSpaceName.optional(),
  /** Keyword and meaning: the facts that match, best first. */
  q: z
    .string()
    .max(MAX_QUERY_CHARS, `q must be at most ${MAX_QUERY_CHARS} characters`)
    .refine(noNul, "q must not contain NUL characters")
    .optional(),
  /** Replaced facts too. */
  history: z.boolean().optional(),
  limit: z.number().int().min(1, "limit must be at least 1").max(1000, "limit must be at most 1000").optional(),
  /** The next page: the `nextCursor` of the page before (listing only; a search with q is ranked, not paged). */
  cursor: z.string().max(200, "cursor must be at most 200 characters").optional(),
});
export type ListFactsInput = z.infer<typeof listFactsInput>;

/** A page's cursor: the last fact's place in the list's order, opaque to clients (base64url JSON). */
export function factCursor(f: FactKey): string {
  return Buffer.from(JSON.stringify([f.validFrom, f.recordedAt, f.rid])).toString("base64url");
}

function readCursor(cursor: string): FactKey {
  try {
    const [validFrom, recordedAt, rid] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof validFrom === "string" && typeof recordedAt === "string" && Number.isSafeInteger(rid))
      return { validFrom, recordedAt, rid: rid as number };
  } catch {
    /* answered below */
  }
  throw new ServiceError(400, "cursor is not one a facts list gave");
}

export const editFactInput = z.strictObject({
  id: factId,
  text: factText,
  /** When the new value became true; default: the edited fact's own validFrom (a correction). */
  validFrom: isoDateTime("validFrom").optional(),
});

/** A fact as the API answers it (docs/api.md#facts). */
export interface FactView {
  id: string;
  text: string;
  /** The space as the person names it: their own by its name, another person's as '<owner id>~<name>'. */
  space: string;
  validFrom: string;
  recordedAt: string;
  validTo: string | null;
  supersededBy: string | null;
  sources: string[];
  origin: FactOrigin;
  confirmedAt: string | null;
  /** Whose it is, when not simply the person's own (a shared space, or written by a sharee). */
  whose?: Whose;
}

export function factView(ctx: MemoContext, facts: FactRow[]): FactView[] {
  const whose = whoseOf(ctx.db, facts);
  return facts.map((f, i) => ({
    id: f.id,
    text: f.text,
    space: isMine(f.spaceId) ? f.spaceId : spaceRef(f.spaceId),
    validFrom: f.validFrom,
    recordedAt: f.recordedAt,
    validTo: f.validTo,
    supersededBy: f.supersededBy,
    sources: f.sources,
    origin: f.origin,
    confirmedAt: f.confirmedAt,
    ...(whose[i] ? { whose: whose[i]! } : {}),
  }));
}

const notFound = (id: string) => new ServiceError(404, `fact ${id} not found`);

/**
 * The acting person's facts (current ones, or with their history), filtered by `q` when given. A listing is
 * paged by keyset: `nextCursor` names the page after (null on the last page); a search is one ranked page.
 */
export async function listFactsFor(
  ctx: MemoContext,
  input: ListFactsInput,
): Promise<{ facts: FactView[]; nextCursor: string | null }> {
  if (input.space) requireReadableSpace(ctx.db, input.space);
  const limit = input.limit ?? (input.q ? 20 : 1000);
  const q = input.q?.trim();
  if (q && input.cursor !== undefined)
    throw new ServiceError(400, "cursor pages a listing; a search with q answers one ranked page (raise limit)");
  if (!q) {
    const after = input.cursor === undefined ? undefined : readCursor(input.cursor);
    const rows = listFacts(ctx.db, { spaceId: input.space, history: input.history, limit: limit + 1, after });
    const page = rows.slice(0, limit);
    return { facts: factView(ctx, page), nextCursor: rows.length > limit ? factCursor(page.at(-1)!) : null };
  }
  return {
    facts: factView(ctx, await searchByQuery(ctx, q, input.space, input.history ?? false, limit)),
    nextCursor: null,
  };
}

/**
 * How far above chance a fact's cosine to `q` must be to count as a match by meaning alone: standard
 * deviations above the query's own mean cosine to the space's memories (retrieval's background,
 * server/memory/retrieval/background.ts), which reads the same for every embedding model.
 */
export const MEANING_Z = 2;

/**
 * `q`: keyword and meaning, best first (searchFacts' fusion). A fact kept by meaning alone must be
 * MEANING_Z above chance; a space too small to measure chance in (under 10 memories), or one being
 * re-indexed, matches by keyword (and by a text containing `q`) only.
 */
async function searchByQuery(
  ctx: MemoContext,
  q: string,
  space: string | undefined,
  history: boolean,
  limit: number,
): Promise<FactRow[]> {
  const { model } = await activeModel(ctx);
  const [vector] = await ctx.embedder.embedQueries([q]);
  // Every own space holding facts (not those of the newest 1,000 facts: a quiet space's facts are found too).
  const spaces = space ? [space] : spacesWithFacts(ctx.db);
  const contains = new Set(listFacts(ctx.db, { spaceId: space, q, history, limit: 10_000 }).map((f) => f.id));
  const hits = spaces.flatMap((s) => {
    const chance = reindexTarget(ctx.db) ? null : queryBackground(backgroundOf(ctx.db, s, model), vector ?? null);
    const byMeaning = (c: number | null) => chance !== null && c !== null && (c - chance.mean) / chance.sd >= MEANING_Z;
    return searchFacts(ctx.db, s, { text: q, vector, model }, limit, { history }).filter(
      (h) => h.bm25 !== null || contains.has(h.fact.id) || byMeaning(h.cosine),
    );
  });
  hits.sort((a, b) => b.score - a.score);
  const out = hits.map((h) => h.fact);
  // A text containing q (a part of a word the keyword index does not split out) that fusion did not rank.
  const seen = new Set(out.map((f) => f.id));
  for (const f of listFacts(ctx.db, { spaceId: space, q, history, limit }))
    if (!seen.has(f.id) && contains.has(f.id)) out.push(f);
  return out.slice(0, limit);
}

/** Every live version of the fact (newest first, with dates); 404 when it is not the person's to read. */
export function factHistoryFor(ctx: MemoContext, id: string): { facts: FactView[] } {
  const versions = factHistory(ctx.db, id);
  if (versions.length === 0) throw notFound(id);
  return { facts: factView(ctx, versions) };
}

/**
 * Add facts: the texts embedded with the document prefix by the app's embedder (the memories' model), then
 * written in one transaction (the store checks sources and replaces; a bad item writes nothing).
 */
export async function addFacts(
  ctx: MemoContext,
  spaceId: string,
  items: Omit<NewFact, "origin">[],
  origin: FactOrigin,
): Promise<string[]> {
  const { model } = await activeModel(ctx);
  const vectors = await ctx.embedder.embedDocuments(items.map((i) => i.text.trim()));
  if (vectors.length !== items.length)
    throw new ServiceError(502, "the embedding server returned too few vectors; nothing was written");
  return insertFacts(
    ctx.db,
    spaceId,
    items.map((i) => ({ ...i, origin })),
    vectors,
    model,
  );
}

/** POST /api/v1/facts: facts added directly (import, scripts, evaluation), origin "import". */
export async function importFacts(ctx: MemoContext, input: AddFactsInput): Promise<{ ids: string[] }> {
  return { ids: await addFacts(ctx, input.space ?? mySpace(DEFAULT_SPACE), input.items, "import") };
}

/**
 * A person edits a fact: a new version (origin "person", the live sources of the old one, its validFrom
 * unless another is given) that replaces it; the old one is kept as history. `created` is false (and nothing
 * written) when the text and date are what they were.
 */
export async function editFact(
  ctx: MemoContext,
  id: string,
  text: string,
  validFrom?: string,
): Promise<{ fact: FactView; created: boolean }> {
  const old = getWritableFact(ctx.db, id);
  if (!old) throw notFound(id);
  if (!isCurrent(old))
    throw new ServiceError(409, `fact ${id} has been replaced; edit its latest version (${old.supersededBy})`);
  const t = text.trim();
  if (t === old.text && (validFrom === undefined || validFrom === old.validFrom))
    return { fact: factView(ctx, [old])[0]!, created: false };
  const sources = liveSources(ctx, old);
  const [newId] = await addFacts(
    ctx,
    old.spaceId,
    [{ text: t, sources, validFrom: validFrom ?? old.validFrom, replaces: [id] }],
    "person",
  );
  return {
    fact: factView(
      ctx,
      factHistory(ctx.db, newId!).filter((f) => f.id === newId),
    )[0]!,
    created: true,
  };
}

function liveSources(ctx: MemoContext, f: FactRow): string[] {
  const live = ctx.db.prepare("SELECT 1 FROM memories WHERE id = ? AND soft_deleted = 0");
  return f.sources.filter((m) => live.get(m));
}

/** What deleting a fact did: with `sources`, also which of its memories were forgotten and what went with them. */
export interface DeletedFact {
  id: string;
  deleted: true;
  /** With ?sources=forget: the memories it came from that were forgotten now (restorable from the trash). */
  sourcesForgotten?: string[];
  /** Other facts learned from those memories that went with them (no live source left), with their text. */
  factsForgotten?: { id: string; text: string }[];
}

/**
 * A person deletes (forgets) a fact with its history. With `forgetSources` (issue 54,
 * `DELETE /api/v1/facts/:id?sources=forget`) the live memories it came from are forgotten too, in the same
 * transaction — undoably, like any forgotten memory (restoreFact with them) — and the answer says exactly
 * what went: those memories, and any other fact whose last live source they were.
 */
export function deleteFact(ctx: MemoContext, id: string, opts: { forgetSources?: boolean } = {}): DeletedFact {
  if (!opts.forgetSources) {
    if (deleteFacts(ctx.db, [id]).length === 0) throw notFound(id);
    return { id, deleted: true };
  }
  const f = getWritableFact(ctx.db, id);
  if (!f) throw notFound(id);
  const sources = liveSources(ctx, f);
  const at = nowIso();
  return ctx.db.transaction(() => {
    if (deleteFacts(ctx.db, [id], at).length === 0) throw notFound(id);
    const forgotten = softDeleteMemories(ctx.db, sources, at);
    const others = ctx.db
      .prepare(
        `SELECT id, text FROM facts WHERE deleted_at = ? AND deleted_reason = 'sources' AND deleted_root = id
           AND id <> ? AND id IN (SELECT fact_id FROM fact_sources WHERE memory_id IN (SELECT value FROM json_each(?)))`,
      )
      .all(at, id, JSON.stringify(forgotten)) as { id: string; text: string }[];
    return { id, deleted: true as const, sourcesForgotten: forgotten, factsForgotten: others };
  })();
}

/**
 * Undo deleteFact; 409 when every memory the fact came from has gone since (it stays deleted). `memories`:
 * the sources deleting it forgot (its answer's `sourcesForgotten`), restored first, with what went with them.
 */
export function restoreFact(ctx: MemoContext, id: string, memories: string[] = []): { fact: FactView } {
  const run = () => {
    if (memories.length) restoreMemories(ctx.db, memories);
    if (restoreFacts(ctx.db, [id]).length === 0) {
      if (isStrandedDeletedFact(ctx.db, id))
        throw new ServiceError(409, `fact ${id} cannot come back: every memory it came from is gone`);
      throw notFound(id);
    }
  };
  if (memories.length) ctx.db.transaction(run)();
  else run();
  return { fact: factHistoryFor(ctx, id).facts.find((f) => f.id === id)! };
}

/**
 * How many facts the acting person's own spaces hold by state (issue 54: What Memo knows says "no current
 * facts" when there were some, rather than "not learned any yet"): current, replaced, deleted or forgotten.
 */
export function factsSummary(ctx: MemoContext): { current: number; replaced: number; deleted: number } {
  return ctx.db
    .prepare(
      `SELECT count(CASE WHEN deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL THEN 1 END) AS current,
              count(CASE WHEN deleted_at IS NULL AND (superseded_by IS NOT NULL OR valid_to IS NOT NULL) THEN 1 END) AS replaced,
              count(CASE WHEN deleted_at IS NOT NULL THEN 1 END) AS deleted
         FROM facts WHERE ${mineScan("space_id")}`,
    )
    .get() as { current: number; replaced: number; deleted: number };
}

/** A person confirms a fact is right. */
export function confirmFactFor(ctx: MemoContext, id: string): { fact: FactView } {
  const f = confirmFact(ctx.db, id);
  if (!f) throw notFound(id);
  return { fact: factView(ctx, [f])[0]! };
}
