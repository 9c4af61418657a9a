/**
 * drizzle/0012_people on a store made before people existed: every row becomes the owner's and nothing is
 * lost. The old store is made with the migrations as they were before 0012 (the journal without it) and
 * filled with raw SQL in the shape today's code writes (memories with vectors and FTS rows, a soft-deleted
 * memory with its parked vector, a document and its chunks, a conversation with messages, a pending API
 * exchange, retrieval events, a session, a token, the owner password, settings and a job run).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { migrationsBefore } from "../test/migrations-before";
import { openDb } from "../db";
import { bindEmbeddingModel, checkInvariant, getMemory } from "../memory/store";
import { axisVector } from "../test/temp-store";
import { getPerson, listPeople } from "./people";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function oldMigrations(): string {
  const dir = migrationsBefore(12);
  dirs.push(dir);
  return dir;
}

const DIM = 8;
const vec = (i: number) => Buffer.from(axisVector(DIM, i).buffer);

test("0012 makes the owner a person and every existing row the owner's; nothing is lost", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-migrate-"));
  dirs.push(dir);
  const file = path.join(dir, "memory.db");

  // ---- a store made before people existed ----
  const old = openDb(file, oldMigrations());
  const db = old.sqlite;
  assert.equal(
    db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'people'").get() instanceof Object &&
      (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'people'").get() as { n: number }).n,
    0,
  );
  bindEmbeddingModel(db, "m", DIM);
  db.prepare("INSERT OR IGNORE INTO spaces (id) VALUES ('personal'), ('work')").run();
  const mem = db.prepare(
    `INSERT INTO memories (id, rid, space_id, content, timestamp, kind, document_id, chunk_index, content_hash, embedding_model, soft_deleted, deleted_at)
     VALUES (?, ?, ?, ?, '2026-01-01T00:00:00.000Z', ?, ?, ?, ?, 'm', ?, ?)`,
  );
  const rows = [
    {
      id: "00000000-0000-4000-8000-000000000001",
      rid: 1,
      space: "personal",
      text: "my sister lives in Lisbon",
      kind: "chat",
    },
    {
      id: "00000000-0000-4000-8000-000000000002",
      rid: 2,
      space: "work",
      text: "the quarterly report is due",
      kind: "remember",
    },
    {
      id: "00000000-0000-4000-8000-000000000003",
      rid: 3,
      space: "personal",
      text: "chapter one of the manual",
      kind: "document",
      doc: "d1",
    },
    {
      id: "00000000-0000-4000-8000-000000000004",
      rid: 4,
      space: "personal",
      text: "an old forgotten fact",
      kind: "chat",
      deleted: true,
    },
  ];
  for (const r of rows) {
    mem.run(
      r.id,
      r.rid,
      r.space,
      r.text,
      r.kind,
      r.doc ?? null,
      r.doc ? 0 : null,
      `h${r.rid}`,
      r.deleted ? 1 : 0,
      r.deleted ? "2026-01-02T00:00:00.000Z" : null,
    );
    if (r.deleted) db.prepare("INSERT INTO memory_vec_trash (rid, embedding) VALUES (?, ?)").run(r.rid, vec(r.rid));
    else {
      db.prepare("INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, ?, ?)").run(
        BigInt(r.rid),
        r.space,
        vec(r.rid),
      );
      db.prepare("INSERT INTO memory_fts (rowid, content) VALUES (?, ?)").run(BigInt(r.rid), r.text);
    }
  }
  db.prepare(
    "INSERT INTO documents (id, space_id, name, mime, size, content_hash, status, chunks_total, chunks_done) VALUES ('d1', 'personal', 'manual.md', 'text/markdown', 10, 'dh', 'done', 1, 1)",
  ).run();
  db.prepare("INSERT INTO document_chunks (document_id, memory_id, chunk_index) VALUES ('d1', ?, 0)").run(rows[2]!.id);
  db.prepare("INSERT INTO conversations (id, space_id, title) VALUES ('c1', 'work', 'Planning')").run();
  db.prepare(
    "INSERT INTO messages (id, conversation_id, role, content) VALUES ('m1', 'c1', 'user', 'hello'), ('m2', 'c1', 'assistant', 'hi')",
  ).run();
  db.prepare(
    "INSERT INTO pending_exchanges (id, space_id, user_content, assistant_content, timestamp, source) VALUES ('x1', 'personal', 'u', 'a', '2026-01-01T00:00:00.000Z', 'api')",
  ).run();
  db.prepare(
    "INSERT INTO retrieval_events (memory_id, space_id, at) VALUES (?, 'personal', '2026-01-03T00:00:00.000Z')",
  ).run(rows[0]!.id);
  db.prepare("INSERT INTO auth_owner (id, password_hash) VALUES (1, 'scrypt$10$8$1$c2FsdA$aGFzaA')").run();
  db.prepare("INSERT INTO auth_sessions (id_hash, expires_at) VALUES ('s1', '2099-01-01T00:00:00.000Z')").run();
  db.prepare("INSERT INTO api_tokens (id, name, token_hash, prefix) VALUES ('t1', 'laptop', 'th', 'memo_ab')").run();
  db.prepare("INSERT INTO settings (key, value) VALUES ('retrieval', '{\"k\":7}')").run();
  db.prepare("INSERT INTO job_runs (job, started_at, status) VALUES ('decay', '2026-01-01T00:00:00.000Z', 'ok')").run();
  const tables = [
    "memories",
    "memory_vec",
    "memory_fts",
    "memory_vec_trash",
    "documents",
    "document_chunks",
    "conversations",
    "messages",
    "pending_exchanges",
    "retrieval_events",
    "auth_sessions",
    "api_tokens",
    "settings",
    "job_runs",
    "spaces",
  ];
  const count = (d: typeof db) =>
    Object.fromEntries(tables.map((t) => [t, (d.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
  const before = count(db);
  const contentBefore = db.prepare("SELECT id, space_id, content, soft_deleted FROM memories ORDER BY rid").all();
  old.sqlite.close();

  // ---- today's migrations ----
  const now = openDb(file);
  try {
    const d = now.sqlite;
    assert.deepEqual(count(d), before, "every table keeps every row");
    assert.deepEqual(
      d.prepare("SELECT id, space_id, content, soft_deleted FROM memories ORDER BY rid").all(),
      contentBefore,
    );
    assert.deepEqual(checkInvariant(d), []);
    const owner = getPerson(d, "owner");
    assert.equal(owner?.role, "admin");
    assert.equal(owner?.disabled, false);
    assert.deepEqual(
      listPeople(d).map((p) => p.id),
      ["owner"],
    );
    for (const t of ["spaces", "auth_sessions", "api_tokens"]) {
      assert.deepEqual(
        d.prepare(`SELECT DISTINCT person_id AS p FROM ${t}`).all(),
        [{ p: "owner" }],
        `${t} rows are the owner's`,
      );
    }
    // The owner's password is where it was (auth_owner), and the owner reads every old memory by id.
    assert.equal(
      (d.prepare("SELECT password_hash AS h FROM auth_owner").get() as { h: string }).h,
      "scrypt$10$8$1$c2FsdA$aGFzaA",
    );
    for (const r of rows) assert.equal(getMemory(d, r.id)?.content, r.text);
  } finally {
    now.sqlite.close();
  }
});
