/**
 * Files on disk are the owner's alone (issue 8, item 6): the data folder and every folder Memo makes in it
 * 0700; the database with its -wal and -shm files, uploaded files, the ANN index and backups 0600 — with
 * umask 0, so that none of it depends on the user's umask. Settings live in the database; the key that seals
 * provider keys beside it, in data/secret.key (0600).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { dbPath } from "../core/config";
import { secretKey, secretKeyPath } from "../core/secret-box";
import { openDb } from "../db";
import { IngestQueue } from "../ingest/queue";
import { startAnnIndex, stopAnnIndex } from "../memory/index/ann-registry";
import { bindEmbeddingModel, insertMemories } from "../memory/store";
import { addDocument, uploadDocuments } from "../services/document-service";
import type { MemoContext } from "../core/context";
import { hashedVector, TEST_MODEL_A, TestDimEmbedder } from "../test/test-dim-embedder";
import { backupDatabase } from "./backup";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "memo-modes-"));
const oldUmask = process.umask(0);
const oldDataDir = process.env.MEMO_DATA_DIR;
after(() => {
  process.umask(oldUmask);
  if (oldDataDir === undefined) delete process.env.MEMO_DATA_DIR;
  else process.env.MEMO_DATA_DIR = oldDataDir;
  fs.rmSync(root, { recursive: true, force: true });
});

const mode = (p: string) => fs.statSync(p).mode & 0o777;

test("data folder 0700; database, WAL, SHM, uploads, ANN index and backups 0600 (umask 0)", async () => {
  const dataDir = path.join(root, "data"); // does not exist yet: Memo creates it
  process.env.MEMO_DATA_DIR = dataDir;
  const file = dbPath();
  const { sqlite } = openDb(file);
  try {
    bindEmbeddingModel(sqlite, TEST_MODEL_A, 4);
    insertMemories(
      sqlite,
      [{ spaceId: "personal", content: "a private note" }],
      [hashedVector("a private note", 4)],
      TEST_MODEL_A,
    );
    const memDir = path.dirname(file);
    assert.equal(mode(dataDir), 0o700, "data folder");
    assert.equal(mode(memDir), 0o700, "store folder");
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      assert.ok(fs.existsSync(f), f);
      assert.equal(mode(f), 0o600, path.basename(f));
    }
    // the key that seals provider keys (issue 33 item 10): in the data folder, outside the database
    assert.equal(secretKeyPath(), path.join(dataDir, "secret.key"));
    secretKey();
    assert.equal(mode(secretKeyPath()), 0o600, "secret.key");

    // uploads: the folder, a file staged from a multipart upload, and one added from memory
    const ctx: MemoContext = { db: sqlite, embedder: new TestDimEmbedder() };
    const queue = new IngestQueue(ctx, { uploadsDir: path.join(memDir, "uploads") });
    const g = globalThis as unknown as { __memoIngestQueues?: WeakMap<object, IngestQueue> };
    (g.__memoIngestQueues ??= new WeakMap()).set(sqlite, queue);
    assert.equal(mode(queue.uploadsDir), 0o700, "uploads folder");
    const form = new FormData();
    form.append("file", new Blob(["# Upload\n\nSomething private.\n"]), "upload.md");
    const up = await uploadDocuments(
      ctx,
      new Request("http://127.0.0.1/api/v1/documents", { method: "POST", body: form }),
    );
    const added = await addDocument(ctx, "added.txt", Buffer.from("Another private text.\n"));
    for (const id of [up.documents[0]!.id, added.id])
      assert.equal(mode(queue.fileOf(id)), 0o600, `uploaded file ${id}`);
    await queue.whenIdle();
    await queue.stop();

    // the ANN index persisted beside the store
    const annDir = path.join(memDir, "ann");
    const idx = startAnnIndex(sqlite, 4, annDir);
    await idx.build();
    stopAnnIndex(sqlite); // saves
    const annFiles = fs.readdirSync(annDir);
    assert.ok(annFiles.length >= 2, annFiles.join(", "));
    assert.equal(mode(annDir), 0o700, "ANN folder");
    for (const f of annFiles) assert.equal(mode(path.join(annDir, f)), 0o600, `ANN file ${f}`);

    // a backup, in a folder that does not exist yet
    const dest = path.join(dataDir, "backups", "memo.db");
    await backupDatabase(file, dest);
    assert.equal(mode(path.dirname(dest)), 0o700, "backups folder");
    assert.equal(mode(dest), 0o600, "backup file");
  } finally {
    sqlite.close();
  }

  // a store made before these modes were enforced is tightened when opened
  fs.chmodSync(file, 0o644);
  fs.chmodSync(path.dirname(file), 0o755);
  const again = openDb(file);
  try {
    assert.equal(mode(file), 0o600);
    assert.equal(mode(path.dirname(file)), 0o700);
    for (const f of [`${file}-wal`, `${file}-shm`])
      if (fs.existsSync(f)) assert.equal(mode(f), 0o600, path.basename(f));
  } finally {
    again.sqlite.close();
  }
});
