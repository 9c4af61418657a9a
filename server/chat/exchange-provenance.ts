/**
 * A stored reply's provenance (docs/retrieval.md#provenance): what its prompt was given, read from the
 * reply's recalled list (messages.recalled) for the exchange's memories (server/memory/store/provenance.ts).
 */
import type { Provenance } from "../memory/store/provenance";

/**
 * A stored reply's provenance: its recalled memories (messages.recalled) and the facts its prompt stated —
 * those the memories carried and, from its Sent to record (messages.sent), the facts leg's and the profile's.
 */
export function provenanceOfRecalled(
  recalled: { id: string; fact?: { id: string } }[] | null,
  sent?: { facts?: string[] } | null,
): Provenance {
  const list = recalled ?? [];
  return {
    memories: list.map((m) => m.id),
    facts: [...new Set([...list.flatMap((m) => (m.fact ? [m.fact.id] : [])), ...(sent?.facts ?? [])])],
  };
}

/** A stored reply's Sent to record's fact ids (messages.sent), or null when it has none or is damaged. */
export function parseSentFacts(raw: string | null): { facts?: string[] } | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as { facts?: unknown };
    return Array.isArray(v?.facts) ? { facts: v.facts.filter((f): f is string => typeof f === "string") } : null;
  } catch {
    return null;
  }
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
