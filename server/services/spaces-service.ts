/**
 * Spaces (docs/architecture.md#spaces) as Settings manages them: list with counts, create, rename (memories, conversations,
 * documents and vectors move, one transaction) and delete with confirmation (everything in the space
 * goes, one transaction). The default space cannot be renamed or deleted: everything that names no
 * space writes there.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import {
  deleteSpace as storeDeleteSpace,
  ensureSpace,
  renameSpace as storeRenameSpace,
  spaceExists,
  spaceReferences,
} from "../memory/store";
import { DEFAULT_SPACE } from "../core/space-name";
import { ServiceError } from "../core/errors";
import { spaceName } from "../core/validators";
import { mySpace, mySpaceOf } from "../core/acting";

export interface SpaceSummary {
  id: string;
  createdAt: string;
  memories: number;
  deleted: number;
  pinned: number;
  conversations: number;
  documents: number;
  isDefault: boolean;
}

export const createSpaceInput = z.strictObject({ name: spaceName });
export const renameSpaceInput = z.strictObject({ from: spaceName, to: spaceName });
/** `confirm` must repeat the space's name: the API's own guard against deleting the wrong space. */
export const deleteSpaceInput = z.strictObject({ name: spaceName, confirm: z.string() });

const countIn = (db: Database.Database, table: string, where = "1") =>
  spaceReferences(db).some((r) => r.table === table)
    ? (db.prepare(`SELECT space_id AS id, count(*) AS n FROM "${table}" WHERE ${where} GROUP BY space_id`).all() as {
        id: string;
        n: number;
      }[])
    : [];

/** The acting person's spaces (their default one made on first sight: a new person has it like the owner). */
export function listSpaceSummaries(db: Database.Database): SpaceSummary[] {
  ensureSpace(db, mySpace(DEFAULT_SPACE));
  const mem = db
    .prepare(
      `SELECT space_id AS id, sum(soft_deleted = 0) AS memories, sum(soft_deleted = 1) AS deleted, sum(pinned = 1 AND soft_deleted = 0) AS pinned
       FROM memories GROUP BY space_id`,
    )
    .all() as { id: string; memories: number; deleted: number; pinned: number }[];
  const byId = new Map(mem.map((m) => [m.id, m]));
  const conv = new Map(countIn(db, "conversations").map((r) => [r.id, r.n]));
  // A failed or cancelled upload kept nothing: it is a row on Ingest, not a document of the space.
  const docs = new Map(countIn(db, "documents", "status NOT IN ('failed', 'cancelled')").map((r) => [r.id, r.n]));
  const spaces = db.prepare("SELECT id, created_at AS createdAt FROM spaces WHERE mine(id) ORDER BY id").all() as {
    id: string;
    createdAt: string;
  }[];
  return spaces.map((s) => ({
    id: s.id,
    createdAt: s.createdAt,
    memories: byId.get(s.id)?.memories ?? 0,
    deleted: byId.get(s.id)?.deleted ?? 0,
    pinned: byId.get(s.id)?.pinned ?? 0,
    conversations: conv.get(s.id) ?? 0,
    documents: docs.get(s.id) ?? 0,
    isDefault: s.id === mySpace(DEFAULT_SPACE),
  }));
}

export function createSpace(db: Database.Database, nameOrKey: string): SpaceSummary {
  const parsed = spaceName.safeParse(nameOrKey);
  if (!parsed.success) throw new ServiceError(400, parsed.error.issues[0]!.message);
  const name = parsed.data;
  if (spaceExists(db, name)) throw new ServiceError(409, `space '${name}' already exists`);
  ensureSpace(db, name);
  return listSpaceSummaries(db).find((s) => s.id === name)!;
}

export function renameSpace(
  db: Database.Database,
  from: string,
  to: string,
): { from: string; to: string; moved: Record<string, number>; vectors: number } {
  const keys = [from, to].map((n) => {
    const parsed = spaceName.safeParse(n);
    if (!parsed.success) throw new ServiceError(400, parsed.error.issues[0]!.message);
    return parsed.data;
  });
  from = keys[0]!;
  to = keys[1]!;
  if (from === mySpace(DEFAULT_SPACE))
    throw new ServiceError(400, `the default space '${DEFAULT_SPACE}' cannot be renamed`);
  if (!spaceExists(db, from)) throw new ServiceError(404, `space '${from}' does not exist`);
  if (from === to) throw new ServiceError(400, "the new name is the same as the old one");
  if (spaceExists(db, to)) throw new ServiceError(409, `space '${to}' already exists; pick another name`);
  return { from, to, ...storeRenameSpace(db, from, to) };
}

export function deleteSpace(
  db: Database.Database,
  name: string,
  confirm: string,
): { name: string; removed: Record<string, number> } {
  const key = mySpaceOf(name);
  if (key === null) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  name = key;
  if (name === mySpace(DEFAULT_SPACE))
    throw new ServiceError(400, `the default space '${DEFAULT_SPACE}' cannot be deleted`);
  if (!spaceExists(db, name)) throw new ServiceError(404, `space '${name}' does not exist`);
  // The confirmation repeats the name the person sees.
  if (mySpaceOf(confirm) !== name)
    throw new ServiceError(400, `to delete space '${name}', confirm with its exact name`);
  return { name, ...storeDeleteSpace(db, name) };
}
