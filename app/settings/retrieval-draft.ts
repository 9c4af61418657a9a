import {
  RETRIEVAL_FIELDS,
  fieldValue,
  fieldsPatch,
  type RetrievalFieldPath,
} from "@/server/memory/retrieval/settings-fields";
import type { RetrievalSettings } from "@/server/memory/retrieval/settings";
import { TECHNIQUES } from "@/server/memory/retrieval/techniques";

/**
 * Settings → Retrieval's draft: the settings as the form holds them (numbers as typed), read from and written
 * back to the settings object through the declared fields (server/memory/retrieval/settings-fields.ts).
 */
export interface RetrievalDraft {
  /** Every declared numeric field, as typed, by its path. */
  numbers: Record<RetrievalFieldPath, string>;
  fusion: RetrievalSettings["fusion"];
  anchorQuery: boolean;
  qualityFilter: boolean;
  packSpeakers: boolean;
}

export const toDraft = (s: RetrievalSettings): RetrievalDraft => ({
  numbers: Object.fromEntries(RETRIEVAL_FIELDS.map((f) => [f.path, String(fieldValue(s, f.path))])) as Record<
    RetrievalFieldPath,
    string
  >,
  fusion: s.fusion,
  anchorQuery: s.anchorQuery,
  qualityFilter: s.qualityFilter,
  packSpeakers: s.packSpeakers,
});

/** The draft as a save: every declared number by its path, and the choices. */
export const draftPatch = (draft: RetrievalDraft) => ({
  ...fieldsPatch((path) => Number(draft.numbers[path])),
  fusion: draft.fusion,
  anchorQuery: draft.anchorQuery,
  qualityFilter: draft.qualityFilter,
  packSpeakers: draft.packSpeakers,
});

/** How many settings the form holds: the declared numbers and the choices (counted, so it stays true). */
export const draftFieldCount = (draft: RetrievalDraft): number =>
  Object.keys(draft.numbers).length + Object.keys(draft).length - 1;

/** One line of what recall does now: how much it packs, how sure it must be, and which techniques are on. */
export function retrievalSummary(draft: RetrievalDraft): string {
  const n = draft.numbers;
  const on = TECHNIQUES.filter((t) => Number(n[t.key]) !== t.off).map((t) => t.label.toLowerCase());
  if (draft.anchorQuery) on.push("anchor query");
  if (draft.qualityFilter) on.push("quality filter");
  if (draft.packSpeakers) on.push("who said what");
  if (Number(n.factMinConfidence) < 1) on.push("facts on their own evidence");
  if (Number(n.profileTokens) > 0) on.push(`a profile of ${n.profileTokens} tokens`);
  return (
    `Up to ${n.topN} memories per reply at confidence ${n.minConfidence} or more, within ${n.tokenBudget} tokens; ` +
    `${draft.fusion === "rrf" ? "reciprocal rank fusion" : "linear fusion"}; on: ${on.length ? on.join(", ") : "nothing else"}.`
  );
}
