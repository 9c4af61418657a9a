/**
 * Who wrote a recalled memory or fact, relative to the person asking (issue 54, docs/retrieval.md#labels):
 * read from stored structure only — the memory's `written_by` (drizzle/0014) or else its space's person
 * (spaces.person_id by key), its kind and conversation (an import's `<app>:` prefix), and its recorded
 * provenance (a reply that mostly restated what it was given). The packed line and Debug Search say it.
 */
import type Database from "better-sqlite3";
import { actingPersonId } from "../../core/acting";
import { spaceNameOf, spacePersonOf } from "../../core/space-name";
import { stmt } from "../../core/statements";
import { MOSTLY_RESTATED } from "./provenance";

/** Who wrote a memory, as the prompt names it. */
export interface MemorySource {
  /** The person whose words it holds (its user-side words, or all of a memory without speakers); null: the person asking. */
  writer: string | null;
  /** Another person's space it came from (their name and the space's); null: the asker's own space. */
  space: { owner: string; name: string } | null;
  /** An imported conversation: the app its stored conversation id names ("chatgpt", else "imported"); null: not an import. */
  imported: string | null;
  /** A stored reply that mostly restated the memories and facts it was given (store/provenance.ts). */
  restated: boolean;
}

/** People's names by id, read once per call. */
export function personNames(db: Database.Database): (id: string) => string {
  const names = new Map<string, string>();
  return (id) => {
    if (!names.has(id)) {
      const r = stmt(db, "SELECT name FROM people WHERE id = ?").get(id) as { name: string } | undefined;
      names.set(id, r?.name ?? "a removed person");
    }
    return names.get(id)!;
  };
}

/** The app an imported conversation came from: its stored id's `<app>:` prefix (server/services/import/formats.ts). */
function importedFrom(kind: string, conversationId: string | null): string | null {
  if (kind !== "import") return null;
  const i = conversationId?.indexOf(":") ?? -1;
  return i > 0 ? conversationId!.slice(0, i) : "imported"; // "from the user's imported history"
}

/** Each memory's source, relative to the acting person (the one chatting or searching). */
export function memorySources(
  db: Database.Database,
  spaceId: string,
  items: { id: string; kind: string; conversationId: string | null }[],
): MemorySource[] {
  if (!items.length) return [];
  const rows = new Map(
    (
      stmt(
        db,
        "SELECT id, written_by AS w, derived_from AS d, novelty FROM memories WHERE id IN (SELECT value FROM json_each(?))",
      ).all(JSON.stringify(items.map((m) => m.id))) as {
        id: string;
        w: string | null;
        d: string | null;
        novelty: number | null;
      }[]
    ).map((r) => [r.id, r]),
  );
  const me = actingPersonId();
  const nameOf = personNames(db);
  const ownerId = spacePersonOf(spaceId);
  const space = ownerId === me ? null : { owner: nameOf(ownerId), name: spaceNameOf(spaceId) };
  return items.map((m) => {
    const r = rows.get(m.id);
    const writerId = r?.w ?? ownerId;
    return {
      writer: writerId === me ? null : nameOf(writerId),
      space,
      imported: importedFrom(m.kind, m.conversationId),
      restated: Boolean(r?.d) && r?.novelty !== null && r?.novelty !== undefined && r.novelty < MOSTLY_RESTATED,
    };
  });
}

/**
 * Who each fact is by, relative to the acting person: the name of its writer (`written_by`, else its space's
 * person) when that is someone else; absent when it is the asker's own.
 */
export function factWriters(db: Database.Database, ids: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!ids.length) return out;
  const rows = stmt(
    db,
    "SELECT id, space_id AS s, written_by AS w FROM facts WHERE id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify([...new Set(ids)])) as { id: string; s: string; w: string | null }[];
  const me = actingPersonId();
  const nameOf = personNames(db);
  for (const r of rows) {
    const writer = r.w ?? spacePersonOf(r.s);
    if (writer !== me) out.set(r.id, nameOf(writer));
  }
  return out;
}
