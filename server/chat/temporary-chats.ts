/**
 * Memory per conversation and temporary chats (columns of `conversations`, migration 0009).
 *
 * A conversation may turn recall off (no memory goes into its prompts) or storing off (its exchanges do
 * not become memories, /remember is refused). A temporary chat reads memory or not (Settings) and never
 * writes any; it is deleted, with its messages, 24 hours after it started or as soon as no page has kept
 * it open for TEMPORARY_LEASE_MS (the chat page heartbeats while its tab is open, and every turn counts),
 * whichever comes first. Temporary chats are not listed with the others.
 *
 * MEMO_TEST_CLOCK_FILE (TEST ONLY): a file holding a number of milliseconds added to the real time when
 * these expiries are decided, so end-to-end tests can move past them without waiting.
 */
import fs from "node:fs";
import type Database from "better-sqlite3";
import { ServiceError } from "../core/errors";

export const TEMPORARY_TTL_MS = 24 * 3600_000;
export const TEMPORARY_LEASE_MS = 2 * 60_000;
/** How often the chat page heartbeats an open temporary chat (well inside the lease). */
export const TEMPORARY_HEARTBEAT_MS = 30_000;

/** Now, for expiry decisions: the real time plus the TEST ONLY offset of MEMO_TEST_CLOCK_FILE. */
export function privacyNow(): number {
  const file = process.env.MEMO_TEST_CLOCK_FILE;
  if (!file) return Date.now();
  try {
    const offset = Number(fs.readFileSync(file, "utf8").trim());
    return Date.now() + (Number.isFinite(offset) ? offset : 0);
  } catch {
    return Date.now();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Delete the temporary chats that expired or that no page kept open; returns how many went. */
export function sweepTemporaryChats(db: Database.Database, now = privacyNow()): number {
  const expired = db
    .prepare(
      "SELECT id FROM conversations WHERE temporary = 1 AND (expires_at <= ? OR coalesce(last_seen_at, created_at) <= ?)",
    )
    .all(iso(now), iso(now - TEMPORARY_LEASE_MS)) as { id: string }[];
  if (!expired.length) return 0;
  const delMessages = db.prepare("DELETE FROM messages WHERE conversation_id = ?");
  const delConversation = db.prepare("DELETE FROM conversations WHERE id = ? AND temporary = 1");
  db.transaction(() => {
    for (const { id } of expired) {
      delMessages.run(id);
      delConversation.run(id);
    }
  })();
  return expired.length;
}

/** The columns a new temporary chat starts with. */
export function temporaryColumns(
  readMemory: boolean,
  now = privacyNow(),
): { recall: boolean; store: boolean; expiresAt: string; lastSeenAt: string } {
  return { recall: readMemory, store: false, expiresAt: iso(now + TEMPORARY_TTL_MS), lastSeenAt: iso(now) };
}

/** A page (or a turn) is still using this temporary chat: extend its lease. No-op for other conversations. */
export function touchTemporaryChat(
  db: Database.Database,
  id: string,
  now = privacyNow(),
): { expiresAt: string | null } {
  sweepTemporaryChats(db, now);
  const r = db.prepare("SELECT temporary, expires_at FROM conversations WHERE id = ? AND mine(space_id)").get(id) as
    | { temporary: number; expires_at: string | null }
    | undefined;
  if (!r)
    throw new ServiceError(
      404,
      `conversation ${id} not found (a temporary chat is deleted when its tab closes or after 24 hours)`,
    );
  if (r.temporary) db.prepare("UPDATE conversations SET last_seen_at = ? WHERE id = ?").run(iso(now), id);
  return { expiresAt: r.expires_at };
}

/** Turn recall or storing on or off for one conversation. A temporary chat's storing stays off. */
export function setConversationMemory(
  db: Database.Database,
  id: string,
  patch: { recall?: boolean; store?: boolean },
): void {
  db.transaction(() => {
    const r = db.prepare("SELECT temporary FROM conversations WHERE id = ? AND mine(space_id)").get(id) as
      | { temporary: number }
      | undefined;
    if (!r) throw new ServiceError(404, `conversation ${id} not found`);
    if (r.temporary && patch.store)
      throw new ServiceError(
        409,
        "a temporary chat never stores memories; start a normal conversation to keep this one",
      );
    if (patch.recall !== undefined)
      db.prepare("UPDATE conversations SET recall_memory = ? WHERE id = ?").run(patch.recall ? 1 : 0, id);
    if (patch.store !== undefined)
      db.prepare("UPDATE conversations SET store_memory = ? WHERE id = ?").run(patch.store ? 1 : 0, id);
  })();
}
