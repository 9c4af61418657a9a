import type { MemoContext } from "../../core/context";
import type { SearchInput } from "../../core/validators";
import { DEFAULT_SPACE } from "../../core/space-name";
import { withDocumentNames } from "./document-names";
import { activeModel } from "../index/model-check";
import { rankDepth } from "./query-builder";
import { packable, retrieve, type RetrievedMemory, type RetrieveResult } from "./retrieve";
import { chunkSection } from "./document-names";
import { packedLine, sharedDays } from "./memory-block";
import { memorySources, type MemorySource } from "./writers";
import { loadRetrievalSettings, type RetrievalSettings } from "./settings";
import { requireReadableSpace, whoseOf, type Whose } from "../store";
import type { StageTimer } from "./stages";
import { mySpace } from "../../core/acting";

/** A search result; `documentName` is the source file of a memory from document ingestion, `documentNames` every file it is in. */
type Named = {
  documentName: string | null;
  documentNames: string[];
  whose?: Whose | null;
  /** Who wrote it, relative to the person searching (writers.ts): what a prompt's line names. */
  source: MemorySource;
  /** The line a chat prompt packs it as (memory-block.ts packedLine, without a budget's cut): the labels the model sees. */
  packedAs: string;
};
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
  // Each result with its writer and the line a prompt would pack it as (the days that carry a time are read
  // from the results that reach the minimum confidence, as a turn's packing reads them).
  const timeOnDays = sharedDays(packable(res.results, settings.minConfidence), settings.topN, input.tzOffsetMinutes);
  const labelled = <T extends RetrievedMemory & { documentName: string | null }>(items: T[]) => {
    const sources = memorySources(ctx.db, spaceId, items);
    return items.map((m, i) => {
      const source = sources[i]!;
      const section = m.documentName ? chunkSection(m.content) : null;
      const packedAs = packedLine(
        { ...m, section, source },
        {
          speakers: settings.packSpeakers,
          assistantMaxChars: settings.assistantMaxChars,
          tzOffsetMinutes: input.tzOffsetMinutes,
          timeOnDays,
        },
      );
      return { ...m, source, packedAs };
    });
  };
  const named = {
    ...res,
    results: whose(labelled(withDocumentNames(ctx.db, res.results))),
    dropped: whose(labelled(withDocumentNames(ctx.db, res.dropped))),
    model,
    settings,
  };
  timer?.mark("results");
  return named;
}
