/**
 * A stored reply's provenance (docs/retrieval.md#provenance): what its prompt was given, read from the
 * reply's recalled list (messages.recalled) for the exchange's memories (server/memory/store/provenance.ts).
 */
import type { Provenance } from "../memory/store/provenance";

/** A reply's recalled memories (messages.recalled) as provenance: their ids and the ids of the facts they carried. */
export function provenanceOfRecalled(recalled: { id: string; fact?: { id: string } }[] | null): Provenance {
  const list = recalled ?? [];
  return {
    memories: list.map((m) => m.id),
    facts: [...new Set(list.flatMap((m) => (m.fact ? [m.fact.id] : [])))],
  };
}

/** A stored reply's recalled list, or null when it is none (a command's record, a damaged value). */
export function parseRecalledList(raw: string | null): { id: string; fact?: { id: string } }[] | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? (v as { id: string; fact?: { id: string } }[]) : null;
  } catch {
    return null;
  }
}
