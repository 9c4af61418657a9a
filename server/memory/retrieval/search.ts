import type { MemoContext } from "../../core/context";
import type { SearchInput } from "../../core/validators";
import { DEFAULT_SPACE } from "../../core/space-name";
import { withDocumentNames } from "./document-names";
import { activeModel } from "../index/model-check";
import { rankDepth } from "./query-builder";
import { retrieve, type RetrievedMemory, type RetrieveResult } from "./retrieve";
import { loadRetrievalSettings, type RetrievalSettings } from "./settings";
import { requireReadableSpace, whoseOf, type Whose } from "../store";
import type { StageTimer } from "./stages";
import { mySpace } from "../../core/acting";

/** A search result; `documentName` is the source file of a memory from document ingestion, `documentNames` every file it is in. */
type Named = { documentName: string | null; documentNames: string[]; whose?: Whose | null };
export type SearchResult = Omit<RetrieveResult, "results" | "dropped"> & {
  results: (RetrievedMemory & Named)[];
  dropped: (RetrievedMemory & { reason: string } & Named)[];
  model: string;
  settings: RetrievalSettings;
};

/**
 * `forPrompt`: a chat turn asks for the whole ranking depth (`rankDepth`), so the top N that reach the
 * minimum confidence come from the ranking Debug Search and the eval see, not from the first N only.
 */
export async function search(
  ctx: MemoContext,
  input: SearchInput & { promote?: boolean; forPrompt?: boolean },
  timer?: StageTimer,
): Promise<SearchResult> {
  const spaceId = input.space ?? mySpace(DEFAULT_SPACE);
  // The person's own space, or one shared with them; any other reads as missing (server/memory/store/shares.ts).
  requireReadableSpace(ctx.db, spaceId);
  const { model } = await activeModel(ctx);
  const { pool, ...overrides } = input.options ?? {};
  const settings = { ...loadRetrievalSettings(ctx.db, model), ...overrides };
  timer?.mark("settings");
  const res = await retrieve(
    ctx.db,
    ctx.embedder,
    {
      query: input.query,
      spaceId,
      k: input.k ?? (input.forPrompt ? rankDepth(settings.topN) : undefined),
      context: input.context,
      promote: input.promote,
      pool,
      model,
      now: input.at,
      tzOffsetMinutes: input.tzOffsetMinutes,
    },
    settings,
    timer,
  );
  // Memories from an ingested file carry its name (joined from documents by document_id).
  // A shared space's memories say whose they are (and who wrote them), in Debug Search and a turn's recall.
  const whose = <T extends { id: string }>(items: T[]): (T & { whose?: Whose | null })[] => {
    if (!items.length) return items;
    const writers = new Map(
      (
        ctx.db
          .prepare("SELECT id, written_by AS w FROM memories WHERE id IN (SELECT value FROM json_each(?))")
          .all(JSON.stringify(items.map((m) => m.id))) as { id: string; w: string | null }[]
      ).map((r) => [r.id, r.w]),
    );
    const w = whoseOf(
      ctx.db,
      items.map((m) => ({ spaceId, writtenBy: writers.get(m.id) ?? null })),
    );
    return items.map((m, i) => (w[i] ? { ...m, whose: w[i] } : m));
  };
  const named = {
    ...res,
    results: whose(withDocumentNames(ctx.db, res.results)),
    dropped: whose(withDocumentNames(ctx.db, res.dropped)),
    model,
    settings,
  };
  timer?.mark("results");
  return named;
}
