/**
 * Shared spaces (issue 32, drizzle/0014_space_shares.sql): a person shares one of their spaces with chosen
 * people, read-only or read-write. The checks here are the store's: who may read a space's memories
 * (visibleScan), who may write them (writableScan), both from server/core/acting.ts so that a lookup by id,
 * a write and a named read ask the same question. A space not shared with the acting person answers exactly
 * like a missing one.
 */
import type Database from "better-sqlite3";
import { ServiceError } from "../../core/errors";
import { actingScope, isMine, spaceRef, visibleScan, writableScan } from "../../core/acting";
import { spaceNameOf, spacePersonOf } from "../../core/space-name";
import { stmt } from "../../core/statements";

export type ShareMode = "read" | "write";

/** May the acting person read this space's memories (theirs, or shared with them)? */
export function canReadSpace(db: Database.Database, spaceId: string): boolean {
  return stmt(db, `SELECT 1 FROM spaces WHERE id = ? AND ${visibleScan("id")}`).get(spaceId) !== undefined;
}

/** May the acting person write into this space (theirs, or shared with them read-write)? */
export function canWriteSpace(db: Database.Database, spaceId: string): boolean {
  return stmt(db, `SELECT 1 FROM spaces WHERE id = ? AND ${writableScan("id")}`).get(spaceId) !== undefined;
}

/** A space as the acting person names it: their own by its key (answers show it as the name), another's as '<id>~<name>'. */
const shown = (spaceId: string) => (isMine(spaceId) ? spaceId : spaceRef(spaceId));

/** The 404 every space the acting person may not read answers with: the same as a space that does not exist. */
export const missingSpace = (spaceId: string) => new ServiceError(404, `space '${shown(spaceId)}' does not exist`);

/** A named read of a space (search, recall, the Manager's filter): 404 unless it exists and is readable. */
export function requireReadableSpace(db: Database.Database, spaceId: string): void {
  if (!canReadSpace(db, spaceId)) throw missingSpace(spaceId);
}

/**
 * A write into a space. The acting person's own space is made on first use, as before; another person's
 * space must exist and be shared with them read-write (403 when read-only, 404 when not shared at all).
 */
export function requireWritableSpace(db: Database.Database, spaceId: string): void {
  if (isMine(spaceId) || canWriteSpace(db, spaceId)) return;
  if (canReadSpace(db, spaceId)) throw new ServiceError(403, `space '${shown(spaceId)}' is shared with you read-only`);
  throw missingSpace(spaceId);
}

/** Who writes a memory into this space: the acting person when it is someone else's space, else null (its own person). */
export function writerFor(spaceId: string): string | null {
  return isMine(spaceId) ? null : actingScope();
}

// ---- managing shares (the space's person only: callers pass the acting person's own key) ----

export interface ShareRow {
  spaceId: string;
  personId: string;
  name: string;
  login: string;
  mode: ShareMode;
  createdAt: string;
}

export function setShare(db: Database.Database, spaceId: string, personId: string, mode: ShareMode): void {
  stmt(
    db,
    `INSERT INTO space_shares (space_id, person_id, mode) VALUES (?, ?, ?)
       ON CONFLICT (space_id, person_id) DO UPDATE SET mode = excluded.mode`,
  ).run(spaceId, personId, mode);
}

/**
 * End a share, and with it every place the space was added to that person's conversations: nothing of the
 * space reaches them afterwards by any path. Returns whether there was a share.
 */
export function removeShare(db: Database.Database, spaceId: string, personId: string): boolean {
  return db.transaction(() => {
    stmt(
      db,
      "DELETE FROM conversation_spaces WHERE space_id = ? AND conversation_id IN (SELECT id FROM conversations WHERE space_id IN (SELECT id FROM spaces WHERE person_id = ?))",
    ).run(spaceId, personId);
    return stmt(db, "DELETE FROM space_shares WHERE space_id = ? AND person_id = ?").run(spaceId, personId).changes > 0;
  })();
}

/** A person a share may name, by id or sign-in name (case-insensitive); an id wins over a sign-in name equal to it. */
export function personByRef(
  db: Database.Database,
  ref: string,
): { id: string; name: string; disabled: boolean } | undefined {
  const r = stmt(
    db,
    "SELECT id, name, disabled FROM people WHERE id = ? OR lower(login) = lower(?) ORDER BY id = ? DESC LIMIT 1",
  ).get(ref, ref, ref) as { id: string; name: string; disabled: number } | undefined;
  return r && { id: r.id, name: r.name, disabled: Boolean(r.disabled) };
}

/** The shares of the spaces of `ownerId`. */
export function sharesOf(db: Database.Database, ownerId: string): ShareRow[] {
  return stmt(
    db,
    `SELECT s.space_id AS spaceId, s.person_id AS personId, p.name, p.login, s.mode, s.created_at AS createdAt
       FROM space_shares s JOIN spaces sp ON sp.id = s.space_id JOIN people p ON p.id = s.person_id
      WHERE sp.person_id = ? ORDER BY s.space_id, p.name`,
  ).all(ownerId) as ShareRow[];
}

export interface SharedWithMe {
  /** How to name the space in requests: '<owner id>~<name>'. */
  space: string;
  name: string;
  ownerId: string;
  ownerName: string;
  mode: ShareMode;
}

/** The spaces shared with `personId`, with their owner's name. */
export function sharedWith(db: Database.Database, personId: string): SharedWithMe[] {
  const rows = stmt(
    db,
    `SELECT s.space_id AS spaceId, sp.person_id AS ownerId, p.name AS ownerName, s.mode
       FROM space_shares s JOIN spaces sp ON sp.id = s.space_id JOIN people p ON p.id = sp.person_id
      WHERE s.person_id = ? ORDER BY p.name, s.space_id`,
  ).all(personId) as { spaceId: string; ownerId: string; ownerName: string; mode: ShareMode }[];
  return rows.map((r) => ({
    space: spaceRef(r.spaceId),
    name: spaceNameOf(r.spaceId),
    ownerId: r.ownerId,
    ownerName: r.ownerName,
    mode: r.mode,
  }));
}

// ---- a conversation's added spaces ----

/** The spaces added to a conversation that its person may still read (a share ended reads as none). */
export function conversationSpaces(db: Database.Database, conversationId: string): string[] {
  return (
    stmt(
      db,
      `SELECT space_id AS id FROM conversation_spaces WHERE conversation_id = ? AND ${visibleScan("space_id")} ORDER BY space_id`,
    ).all(conversationId) as { id: string }[]
  ).map((r) => r.id);
}

/** Replace a conversation's added spaces (the caller checked the conversation is the acting person's). */
export function setConversationSpaces(db: Database.Database, conversationId: string, spaceIds: string[]): void {
  for (const s of spaceIds) requireReadableSpace(db, s);
  db.transaction(() => {
    stmt(db, "DELETE FROM conversation_spaces WHERE conversation_id = ?").run(conversationId);
    const ins = stmt(db, "INSERT OR IGNORE INTO conversation_spaces (conversation_id, space_id) VALUES (?, ?)");
    for (const s of spaceIds) ins.run(conversationId, s);
  })();
}

// ---- whose a memory is ----

/** Whose a memory is, shown beside it when it is not simply the acting person's own. */
export interface Whose {
  /** The space's person. */
  owner: string;
  /** Who wrote it, when that is not the space's person (a read-write share). */
  writer: string | null;
  /** The space as the acting person names it in requests ('<owner id>~<name>' when it is another's). */
  space: string;
}

/**
 * Whose each memory is, for memories the acting person sees but did not simply write into a space of their
 * own: another person's (a shared space), or their own space written into by someone they share it with.
 * Memories without either get no entry.
 */
export function whoseOf(
  db: Database.Database,
  memories: { spaceId: string; writtenBy?: string | null }[],
): (Whose | null)[] {
  const names = new Map<string, string>();
  const nameOf = (id: string) => {
    if (!names.has(id)) {
      const r = stmt(db, "SELECT name FROM people WHERE id = ?").get(id) as { name: string } | undefined;
      names.set(id, r?.name ?? "a removed person");
    }
    return names.get(id)!;
  };
  return memories.map((m) => {
    const writer = m.writtenBy ?? null;
    if (isMine(m.spaceId) && (writer === null || writer === actingScope())) return null;
    const ownerId = spacePersonOf(m.spaceId);
    return {
      owner: nameOf(ownerId),
      writer: writer && writer !== ownerId ? nameOf(writer) : null,
      space: isMine(m.spaceId) ? m.spaceId : spaceRef(m.spaceId),
    };
  });
}

/**
 * Memories written by `personId` (into others' shared spaces) name `replacement` instead: what stays of a
 * removed person's writing there is the space's person's, no longer naming them.
 */
export function reassignWrittenBy(db: Database.Database, personId: string, replacement: string): number {
  return stmt(db, "UPDATE memories SET written_by = ? WHERE written_by = ?").run(replacement, personId).changes;
}
