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

const countIn = (db: Database.Database, table: string) =>
  spaceReferences(db).some((r) => r.table === table)
    ? (db.prepare(`SELECT space_id AS id, count(*) AS n FROM "${table}" GROUP BY space_id`).all() as {
        id: string;
        n: number;
      }[])
    : [];

export function listSpaceSummaries(db: Database.Database): SpaceSummary[] {
  const mem = db
    .prepare(
      `SELECT space_id AS id, sum(soft_deleted = 0) AS memories, sum(soft_deleted = 1) AS deleted, sum(pinned = 1 AND soft_deleted = 0) AS pinned
       FROM memories GROUP BY space_id`,
    )
    .all() as { id: string; memories: number; deleted: number; pinned: number }[];
  const byId = new Map(mem.map((m) => [m.id, m]));
  const conv = new Map(countIn(db, "conversations").map((r) => [r.id, r.n]));
  const docs = new Map(countIn(db, "documents").map((r) => [r.id, r.n]));
  const spaces = db.prepare("SELECT id, created_at AS createdAt FROM spaces ORDER BY id").all() as {
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
    isDefault: s.id === DEFAULT_SPACE,
  }));
}

export function createSpace(db: Database.Database, name: string): SpaceSummary {
  const parsed = spaceName.safeParse(name);
  if (!parsed.success) throw new ServiceError(400, parsed.error.issues[0]!.message);
  if (spaceExists(db, name)) throw new ServiceError(409, `space '${name}' already exists`);
  ensureSpace(db, name);
  return listSpaceSummaries(db).find((s) => s.id === name)!;
}

export function renameSpace(
  db: Database.Database,
  from: string,
  to: string,
): { from: string; to: string; moved: Record<string, number>; vectors: number } {
  for (const n of [from, to]) {
    const parsed = spaceName.safeParse(n);
    if (!parsed.success) throw new ServiceError(400, parsed.error.issues[0]!.message);
  }
  if (from === DEFAULT_SPACE) throw new ServiceError(400, `the default space '${DEFAULT_SPACE}' cannot be renamed`);
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
  if (name === DEFAULT_SPACE) throw new ServiceError(400, `the default space '${DEFAULT_SPACE}' cannot be deleted`);
  if (!spaceExists(db, name)) throw new ServiceError(404, `space '${name}' does not exist`);
  if (confirm !== name) throw new ServiceError(400, `to delete space '${name}', confirm with its exact name`);
  return { name, ...storeDeleteSpace(db, name) };
}
