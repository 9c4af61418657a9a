/**
 * Telling a person a space was shared with them (issue 48): each share their eyes have not yet met is a
 * notice on their chat page ("Owner shared the space 'recipes' with you (read-only)") until they dismiss it
 * or add the space to a chat. Whether they saw it is the share's own `seen_at` (drizzle/0025_share_notices.sql),
 * so it is per person and per space, and ends with the share. Sharing anew or changing the mode tells them again.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { actingPersonId, spaceRef } from "../core/acting";
import { ServiceError } from "../core/errors";
import { spaceNameOf } from "../core/space-name";
import { stmt } from "../core/statements";
import { sharedSpaceName } from "../core/validators";
import type { ShareMode } from "../memory/store";

export interface ShareNotice {
  /** How to name the space in requests: '<owner id>~<name>'. */
  space: string;
  name: string;
  ownerName: string;
  mode: ShareMode;
  /** When it was shared (ISO). */
  sharedAt: string;
}

export const dismissShareNoticeInput = z.strictObject({ space: sharedSpaceName });

// ---- queries ----

/** The shares with `personId` they have not seen yet, oldest first, with their owner's name. */
function unseenSharesOf(
  db: Database.Database,
  personId: string,
): { spaceId: string; ownerName: string; mode: ShareMode; sharedAt: string }[] {
  return stmt(
    db,
    `SELECT s.space_id AS spaceId, p.name AS ownerName, s.mode, s.created_at AS sharedAt
       FROM space_shares s JOIN spaces sp ON sp.id = s.space_id JOIN people p ON p.id = sp.person_id
      WHERE s.person_id = ? AND s.seen_at IS NULL ORDER BY s.created_at, s.space_id`,
  ).all(personId) as { spaceId: string; ownerName: string; mode: ShareMode; sharedAt: string }[];
}

/** Mark a share as seen by its person; false when there is no such share. */
function markShareSeen(db: Database.Database, spaceId: string, personId: string): boolean {
  return (
    stmt(
      db,
      "UPDATE space_shares SET seen_at = coalesce(seen_at, strftime('%Y-%m-%dT%H:%M:%fZ','now')) WHERE space_id = ? AND person_id = ?",
    ).run(spaceId, personId).changes > 0
  );
}

/** The share is news again to its person (shared anew, or its mode changed). */
export function markShareUnseen(db: Database.Database, spaceId: string, personId: string): void {
  stmt(db, "UPDATE space_shares SET seen_at = NULL WHERE space_id = ? AND person_id = ?").run(spaceId, personId);
}

// ---- the acting person's notices ----

/** The spaces shared with the acting person that they have not seen yet. */
export function shareNotices(db: Database.Database): ShareNotice[] {
  return unseenSharesOf(db, actingPersonId()).map((r) => ({
    space: spaceRef(r.spaceId),
    name: spaceNameOf(r.spaceId),
    ownerName: r.ownerName,
    mode: r.mode,
    sharedAt: r.sharedAt,
  }));
}

/** The acting person dismissed the notice of a space shared with them (404 when it is not shared with them). */
export function dismissShareNotice(
  db: Database.Database,
  input: z.infer<typeof dismissShareNoticeInput>,
): { space: string } {
  if (!markShareSeen(db, input.space, actingPersonId()))
    throw new ServiceError(404, `space '${spaceRef(input.space)}' is not shared with you`);
  return { space: spaceRef(input.space) };
}

/** The acting person added these spaces to a chat: that is seeing them (spaces not shared with them are skipped). */
export function markSharesSeen(db: Database.Database, spaceIds: readonly string[]): void {
  const me = actingPersonId();
  for (const s of spaceIds) markShareSeen(db, s, me);
}
