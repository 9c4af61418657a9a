import type { MemoContext } from "../../core/context";
import { ServiceError } from "../../core/errors";
import type { SearchInput } from "../../core/validators";
import { DEFAULT_SPACE } from "../../core/space-name";
import { withDocumentNames } from "./document-names";
import { activeModel } from "../index/model-check";
import { rankDepth } from "./query-builder";
import { retrieve, type RetrievedMemory, type RetrieveResult } from "./retrieve";
import { loadRetrievalSettings, type RetrievalSettings } from "./settings";
import { spaceExists } from "../store";
import type { StageTimer } from "./stages";
import { mySpace } from "../../core/acting";

/** A search result; `documentName` is the source file of a memory from document ingestion, `documentNames` every file it is in. */
export type SearchResult = Omit<RetrieveResult, "results" | "dropped"> & {
  results: (RetrievedMemory & { documentName: string | null; documentNames: string[] })[];
  dropped: (RetrievedMemory & { reason: string; documentName: string | null; documentNames: string[] })[];
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
  if (!spaceExists(ctx.db, spaceId)) throw new ServiceError(404, `space '${spaceId}' does not exist`);
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
  const named = {
    ...res,
    results: withDocumentNames(ctx.db, res.results),
    dropped: withDocumentNames(ctx.db, res.dropped),
    model,
    settings,
  };
  timer?.mark("results");
  return named;
}
