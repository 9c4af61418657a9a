/**
 * Fact rows (issue 42, drizzle/0019_facts.sql): the types, the limits a write is checked against, and the
 * row mapping. A fact is CURRENT when validTo, supersededBy and deletedAt are null; SUPERSEDED facts are its
 * history (still indexed); FORGOTTEN facts (deletedAt) are in no index, restorable until their sources go.
 */
import { mineScan } from "../../core/acting";

export type FactOrigin = "learned" | "person" | "import";
export const FACT_ORIGINS: FactOrigin[] = ["learned", "person", "import"];

/** A fact's text after trimming: at least 1 and at most this many characters (one short statement). */
export const MAX_FACT_CHARS = 500;
/** Facts per insertFacts call (a POST, one extraction): more is a batch the caller splits. */
export const MAX_FACTS_PER_CALL = 100;
/** Source memories of one fact. */
export const MAX_FACT_SOURCES = 50;
/** Facts one new fact may replace. */
export const MAX_FACT_REPLACES = 20;

export interface FactRow {
  id: string;
  rid: number;
  spaceId: string;
  text: string;
  contentHash: string;
  /** When it became true (ISO-8601 UTC). */
  validFrom: string;
  /** When Memo learned it. */
  recordedAt: string;
  /** When it stopped being true (set when replaced); null while current. */
  validTo: string | null;
  /** The fact that replaced it; null while current. */
  supersededBy: string | null;
  origin: FactOrigin;
  /** When a person confirmed it (the "What Memo knows" page); null: never. */
  confirmedAt: string | null;
  /** Who wrote it into another person's space through a read-write share; null: the space's person. */
  writtenBy: string | null;
  /** When it was forgotten; null: live. */
  deletedAt: string | null;
  deletedReason: "person" | "sources" | null;
  embeddingModel: string;
  /**
   * Its source memories' ids (sorted). A trashed source is listed for the space's person only: a shared
   * space's trash is its owner's alone (issue 48), so a sharee sees the live ones.
   */
  sources: string[];
}

export interface NewFact {
  text: string;
  /** Source memories: at least one, live, in the fact's space. */
  sources: string[];
  /** ISO-8601; absent: a past date the text gives (relative to the sources), else the earliest source's time. */
  validFrom?: string;
  /** Current facts of the same space this one replaces (they get validTo and supersededBy). */
  replaces?: string[];
  origin: FactOrigin;
}

export const FACT_COLUMNS = `f.id, f.rid, f.space_id AS spaceId, f.text, f.content_hash AS contentHash,
  f.valid_from AS validFrom, f.recorded_at AS recordedAt, f.valid_to AS validTo, f.superseded_by AS supersededBy,
  f.origin, f.confirmed_at AS confirmedAt, f.written_by AS writtenBy, f.deleted_at AS deletedAt,
  f.deleted_reason AS deletedReason, f.embedding_model AS embeddingModel,
  (SELECT json_group_array(s.memory_id) FROM fact_sources s WHERE s.fact_id = f.id
     AND (${mineScan("f.space_id")} OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = s.memory_id AND m.soft_deleted = 1))
  ) AS sources`;

export function rowToFact(r: Record<string, unknown>): FactRow {
  return { ...(r as unknown as FactRow), sources: JSON.parse(String(r.sources ?? "[]")) as string[] };
}

/** Is this fact current (neither replaced nor forgotten)? */
export const isCurrent = (f: Pick<FactRow, "validTo" | "supersededBy" | "deletedAt">): boolean =>
  f.validTo === null && f.supersededBy === null && f.deletedAt === null;
