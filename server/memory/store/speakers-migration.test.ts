/**
 * drizzle/0016_speakers on a store made before speakers were stored: every row keeps its data, and a chat
 * memory gets its speakers from the messages it was written from (the conversation's structure), never
 * from the "User:" / "Assistant:" labels in its text. The old store is made with the migrations up to 0015.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { migrationsBefore } from "../../test/migrations-before";
import { openDb } from "../../db";
import { axisVector } from "../../test/temp-store";
import { bindEmbeddingModel, checkInvariant, getMemory } from "./index";
import { exchangeText } from "./chunker";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function oldMigrations(): string {
  const dir = migrationsBefore(16);
  dirs.push(dir);
  return dir;
}

const DIM = 8;
const vec = (i: number) => Buffer.from(axisVector(DIM, i).buffer);
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const squash = (s: string) => s.split(/\s+/).filter(Boolean).join(" ");

test("0016 keeps every row and backfills a chat memory's speakers from its messages only", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-migrate-"));
  dirs.push(dir);
  const file = path.join(dir, "memory.db");
  const old = openDb(file, oldMigrations());
  const db = old.sqlite;
  bindEmbeddingModel(db, "m", DIM);
  db.prepare("INSERT OR IGNORE INTO spaces (id) VALUES ('personal')").run();
  const user = "my  sister lives\nin Lisbon 🙂";
  const reply = "Lisbon is lovely.\n\nDoes she like it?";
  const rows = [
    // 1: a chat exchange recorded on its assistant message: backfilled.
    { n: 1, text: squash(exchangeText(user, reply)), kind: "chat", conv: "c1" },
    // 2: labelled like a chat exchange but no message records it: stays NULL (the labels are not read).
    { n: 2, text: "User: the quarterly report is due Assistant: noted", kind: "chat", conv: null },
    // 3: a document chunk: NULL.
    { n: 3, text: "chapter one of the manual", kind: "document", conv: null },
    // 4: recorded, but its content is not what that pair stores (edited since): NULL.
    { n: 4, text: "User: hello there Assistant: something else entirely", kind: "chat", conv: "c1" },
  ];
  const ins = db.prepare(
    `INSERT INTO memories (id, rid, space_id, content, timestamp, kind, conversation_id, content_hash, embedding_model)
     VALUES (?, ?, 'personal', ?, '2026-01-01T00:00:00.000Z', ?, ?, ?, 'm')`,
  );
  for (const r of rows) {
    ins.run(id(r.n), r.n, r.text, r.kind, r.conv, `h${r.n}`);
    db.prepare("INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, 'personal', ?)").run(
      BigInt(r.n),
      vec(r.n),
    );
    db.prepare("INSERT INTO memory_fts (rowid, content) VALUES (?, ?)").run(BigInt(r.n), r.text);
    // The copy of each live vector the store keeps beside vec0 (drizzle/0015_vector_rows.sql).
    db.prepare("INSERT INTO memory_vec_rows (rid, embedding) VALUES (?, ?)").run(r.n, vec(r.n));
  }
  db.prepare("INSERT INTO conversations (id, space_id, title) VALUES ('c1', 'personal', 'Family')").run();
  const msg = db.prepare(
    "INSERT INTO messages (id, conversation_id, role, content, created_at, memory_ids) VALUES (?, 'c1', ?, ?, ?, ?)",
  );
  msg.run("m1", "user", user, "2026-01-01T00:00:00.000Z", null);
  msg.run("m2", "assistant", reply, "2026-01-01T00:00:01.000Z", JSON.stringify([id(1)]));
  msg.run("m3", "user", "hello there", "2026-01-01T00:00:02.000Z", null);
  msg.run("m4", "assistant", "hi", "2026-01-01T00:00:03.000Z", JSON.stringify([id(4)]));
  const before = db.prepare("SELECT id, content, kind, conversation_id FROM memories ORDER BY rid").all();
  old.sqlite.close();

  const now = openDb(file);
  try {
    const d = now.sqlite;
    assert.deepEqual(d.prepare("SELECT id, content, kind, conversation_id FROM memories ORDER BY rid").all(), before);
    assert.deepEqual(checkInvariant(d), []);
    const m1 = getMemory(d, id(1))!;
    assert.ok(m1.speakers, "the recorded exchange is backfilled");
    const parts = m1.speakers.map((s) => [s.role, m1.content.slice(s.start, s.end)]);
    assert.deepEqual(parts, [
      ["user", squash(user)],
      ["assistant", squash(reply)],
    ]);
    for (const n of [2, 3, 4]) assert.equal(getMemory(d, id(n))!.speakers, null, `memory ${n} stays unknown`);
  } finally {
    now.sqlite.close();
  }
});
