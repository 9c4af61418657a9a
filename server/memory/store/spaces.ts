/** Spaces: create, list, rename and delete, moving every row that names one. */
import type Database from "better-sqlite3";
import { StoreError } from "../../core/errors";
import { stmt } from "../../core/statements";
import { spacePersonOf } from "../../core/space-name";
import { hasNextVector } from "./read";
import { dropVector, putVector } from "./vector-rows";
import { dropSpaceIndexes } from "./keyword-index";
import { type VectorWrite, blobToVector, bumpGeneration, notify, reindexTarget } from "./rows";

/** A space key's row, made on first use; its person is the key's (server/core/space-name.ts spaceKey). */
export function ensureSpace(db: Database.Database, spaceId: string): void {
  stmt(db, "INSERT OR IGNORE INTO spaces (id, person_id) VALUES (?, ?)").run(spaceId, spacePersonOf(spaceId));
}

export function spaceExists(db: Database.Database, spaceId: string): boolean {
  return stmt(db, "SELECT 1 FROM spaces WHERE id = ?").get(spaceId) !== undefined;
}

export function listSpaces(db: Database.Database): string[] {
  return (stmt(db, "SELECT id FROM spaces WHERE mine(id) ORDER BY id").all() as { id: string }[]).map((r) => r.id);
}

/** Every (table, column) with a foreign key to spaces(id): memories, conversations, documents, and any table added later. */
export function spaceReferences(db: Database.Database): { table: string; column: string }[] {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  const refs: { table: string; column: string }[] = [];
  for (const t of tables) {
    const fks = db.prepare(`SELECT "table" AS target, "from" AS col FROM pragma_foreign_key_list(?)`).all(t.name) as {
      target: string;
      col: string;
    }[];
    for (const fk of fks) if (fk.target === "spaces") refs.push({ table: t.name, column: fk.col });
  }
  return refs;
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Rename a space, in one transaction: the new space row (keeping created_at), every row that refers to
 * the space (memories, conversations, documents, ...), and the vectors. memory_vec's partition key
 * cannot be updated, so each vector row is deleted and inserted again under the new partition; during
 * a re-index the same is done in memory_vec_next. Returns how many rows moved per table and how many
 * live vectors moved.
 */
export function renameSpace(
  db: Database.Database,
  from: string,
  to: string,
): { moved: Record<string, number>; vectors: number } {
  const write: VectorWrite = { added: [], removed: [], generation: 0 };
  const tx = db.transaction(() => {
    if (from === to) throw new StoreError("the new name is the same as the old one", "INVALID");
    if (!spaceExists(db, from)) throw new StoreError(`space '${from}' does not exist`, "NOT_FOUND");
    if (spaceExists(db, to)) throw new StoreError(`space '${to}' already exists`, "INVALID");
    const reindexing = reindexTarget(db) !== undefined;
    const readVec = stmt(db, "SELECT embedding FROM memory_vec WHERE rowid = ?");
    stmt(
      db,
      "INSERT INTO spaces (id, created_at, person_id) SELECT ?, created_at, person_id FROM spaces WHERE id = ?",
    ).run(to, from);
    const rows = stmt(db, "SELECT rid, soft_deleted AS sd FROM memories WHERE space_id = ? ORDER BY rid").all(from) as {
      rid: number;
      sd: number;
    }[];
    const moved: Record<string, number> = {};
    for (const ref of spaceReferences(db)) {
      const col = quoteIdent(ref.column);
      moved[ref.table] = db
        .prepare(`UPDATE ${quoteIdent(ref.table)} SET ${col} = ? WHERE ${col} = ?`)
        .run(to, from).changes;
    }
    let vectors = 0;
    for (const { rid, sd } of rows) {
      if (reindexing) {
        // Vectors of the new model (live and soft-deleted memories alike) move partition too.
        const next = stmt(db, "SELECT embedding FROM memory_vec_next WHERE rowid = ?").get(BigInt(rid)) as
          | { embedding: Buffer }
          | undefined;
        if (next) {
          stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?").run(BigInt(rid));
          stmt(db, "INSERT INTO memory_vec_next (rowid, space_id, embedding) VALUES (?, ?, ?)").run(
            BigInt(rid),
            to,
            next.embedding,
          );
        }
      }
      if (sd) continue; // a soft-deleted memory's vector is parked in memory_vec_trash, keyed by rid alone
      const v = readVec.get(BigInt(rid)) as { embedding: Buffer } | undefined;
      if (!v) {
        if (reindexing && hasNextVector(db, rid)) continue; // written during the re-index: its only vector is in memory_vec_next
        throw new StoreError(
          `memory rid ${rid} has no vector; the store is inconsistent, nothing was renamed`,
          "INVALID",
        );
      }
      dropVector(db, rid);
      putVector(db, rid, to, v.embedding);
      write.removed.push({ rid, spaceId: from });
      write.added.push({ rid, spaceId: to, vector: blobToVector(v.embedding) });
      vectors++;
    }
    stmt(db, "DELETE FROM spaces WHERE id = ?").run(from);
    // The old name's count (0 now: the triggers moved it) goes with the name.
    stmt(db, "DELETE FROM live_counts WHERE space_id = ?").run(from);
    if (vectors) write.generation = bumpGeneration(db);
    return { moved, vectors };
  });
  const out = tx();
  notify(db, write);
  return out;
}

/**
 * Delete a space and everything in it, in one transaction: its memories from every table (live and
 * soft-deleted, with parked vectors), then the rows of every other table that refers to the space
 * (conversations with their messages by cascade, documents, ...), then the space. Returns rows removed per table.
 */
export function deleteSpace(db: Database.Database, spaceId: string): { removed: Record<string, number> } {
  const delTrash = stmt(db, "DELETE FROM memory_vec_trash WHERE rid = ?");
  const write: VectorWrite = { added: [], removed: [], generation: 0 };
  const tx = db.transaction(() => {
    if (!spaceExists(db, spaceId)) throw new StoreError(`space '${spaceId}' does not exist`, "NOT_FOUND");
    const rows = stmt(db, "SELECT rid, soft_deleted AS sd FROM memories WHERE space_id = ?").all(spaceId) as {
      rid: number;
      sd: number;
    }[];
    const delNext = reindexTarget(db) ? stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?") : null;
    for (const r of rows) {
      dropVector(db, r.rid);
      delTrash.run(r.rid);
      delNext?.run(BigInt(r.rid));
      if (!r.sd) write.removed.push({ rid: r.rid, spaceId });
    }
    stmt(db, "DELETE FROM document_chunks WHERE memory_id IN (SELECT id FROM memories WHERE space_id = ?)").run(
      spaceId,
    );
    dropSpaceIndexes(db, spaceId);
    const removed: Record<string, number> = {
      memories: stmt(db, "DELETE FROM memories WHERE space_id = ?").run(spaceId).changes,
    };
    for (const ref of spaceReferences(db)) {
      if (ref.table === "memories") continue;
      const col = quoteIdent(ref.column);
      removed[ref.table] =
        (removed[ref.table] ?? 0) +
        db.prepare(`DELETE FROM ${quoteIdent(ref.table)} WHERE ${col} = ?`).run(spaceId).changes;
    }
    stmt(db, "DELETE FROM spaces WHERE id = ?").run(spaceId);
    // live_counts names the space (a removed person's key) and has no foreign key to it: its row goes too.
    stmt(db, "DELETE FROM live_counts WHERE space_id = ?").run(spaceId);
    if (write.removed.length) write.generation = bumpGeneration(db);
    return { removed };
  });
  const out = tx();
  notify(db, write);
  return out;
}
