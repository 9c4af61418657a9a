/**
 * Removing a person is crash-safe (issue 32): one transaction, then the file deletions. A child process is
 * killed (SIGKILL) at the test seam between the commit and the deletions; the next start (the ingest queue's
 * recover() and the ANN index's load, as server/boot.ts runs them) sweeps what the crash left, so nothing of
 * the person remains in the rows, FTS, vectors, trash, ANN files, uploads or job history — and the owner's
 * data is whole. And it leaves no byte of theirs in the store's files (issue 43): the database, -wal and -shm
 * files are read after the removal and its scrub for the person's words, their FTS stems, their vectors and
 * their id.
 */
import { insertImportJob } from "./import/job-rows";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { createPerson } from "../auth/people";
import { openDb } from "../db";
import { insertDocuments } from "../ingest/documents";
import { queueFor, uploadPath, uploadsDirFor } from "../ingest/queue";
import { annFor, startAnnIndex, stopAnnIndex } from "../memory/index/ann-registry";
import {
  checkInvariant,
  indexedTotal,
  keywordTableOf,
  matchCount,
  deleteSpace,
  insertMemories,
  recordRetrievals,
  setShare,
  softDeleteMemories,
} from "../memory/store";
import { runAs } from "../core/acting";
import { appendMessages, createConversation } from "../chat/conversations";
import { scrubInProgress, scrubPending } from "../db/scrub";
import { openTempStore, type TempStore } from "../test/temp-store";
import { hashedVector, TEST_MODEL_A, TestDimEmbedder } from "../test/test-dim-embedder";
import { insertFacts } from "../memory/facts/store";
import { removePersonData } from "./people-service";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

async function ready(db: Parameters<typeof annFor>[0]): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (annFor(db)?.isFresh()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`the ANN index did not get ready: ${annFor(db)?.state}`);
}

test("a removal killed after its commit, before the file deletions: the next start leaves nothing of the person", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  let db = s.sqlite;
  const bo = createPerson(db, { name: "Bo", login: "bo", passwordHash: "unused", role: "member" });
  const boSpace = `${bo.id}~personal`;
  const ownerTexts = ["owner likes plums", "owner parks on level 2"];
  const boTexts = ["bo's kumquat tree", "bo's kumquat jam recipe", "bo's trashed kumquat note"];
  const ownerIds = insertMemories(
    db,
    ownerTexts.map((content) => ({ spaceId: "personal", content })),
    ownerTexts.map((t) => hashedVector(t, 4)),
    TEST_MODEL_A,
  );
  const boIds = insertMemories(
    db,
    boTexts.map((content) => ({ spaceId: boSpace, content })),
    boTexts.map((t) => hashedVector(t, 4)),
    TEST_MODEL_A,
  );
  softDeleteMemories(db, [boIds[2]!], new Date().toISOString());
  // An uploaded file each (the rows say whose).
  const uploads = uploadsDirFor(db);
  fs.mkdirSync(uploads, { recursive: true });
  const [boDoc, ownerDoc] = insertDocuments(db, [
    { spaceId: boSpace, name: "bo.md", mime: "text/markdown", size: 7, contentHash: "b", status: "failed" },
    { spaceId: "personal", name: "owner.md", mime: "text/markdown", size: 7, contentHash: "o", status: "failed" },
  ]);
  fs.writeFileSync(uploadPath(uploads, boDoc!.id), "kumquat");
  fs.writeFileSync(uploadPath(uploads, ownerDoc!.id), "plums!!");
  // Job history quoting both: a consolidation run's merges, a decay run's per-person rules.
  db.prepare("INSERT INTO job_runs (job, started_at, status, result) VALUES (?, ?, 'ok', ?)").run(
    "consolidate",
    new Date().toISOString(),
    JSON.stringify({
      counts: { merged: 2 },
      merges: [
        { id: boIds[1], from: [boIds[0], boIds[1]], content: "bo's kumquat tree and jam" },
        { id: ownerIds[0], from: [ownerIds[0], ownerIds[1]], content: "owner likes plums" },
      ],
      people: { [bo.id]: { idleDays: 2 }, owner: { idleDays: 14 } },
    }),
  );
  // The ANN index saved with a graph per space, as a shutdown leaves it.
  const annDir = path.join(s.dir, "ann");
  startAnnIndex(db, 4, annDir);
  await ready(db);
  stopAnnIndex(db);
  const boGraph = `${encodeURIComponent(boSpace)}.f16.usearch`;
  assert.ok(fs.readdirSync(annDir).includes(boGraph), "Bo's graph is on disk before the removal");
  db.close();

  // The removal, in a child killed at the seam after the commit.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import { openDb } from "./server/db/index.ts";
       import { removePersonData } from "./server/services/people-service.ts";
       const db = openDb(${JSON.stringify(s.file)}).sqlite;
       removePersonData(db, ${JSON.stringify(bo.id)}, { afterCommitBeforeFiles: () => process.kill(process.pid, "SIGKILL") });
       console.log("not killed");`,
    ],
    { stdio: ["ignore", "pipe", "inherit"], cwd: process.cwd() },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const [code, signal] = await new Promise<[number | null, string | null]>((r) =>
    child.once("exit", (c, sig) => r([c, sig])),
  );
  assert.equal(signal, "SIGKILL", `child exited with ${code}: ${out}`);
  assert.ok(fs.existsSync(uploadPath(uploads, boDoc!.id)), "killed before the file deletions: Bo's upload is left");

  // The next start.
  db = openDb(s.file).sqlite;
  queueFor({ db, embedder: new TestDimEmbedder() }, { uploadsDir: uploads }).recover();
  startAnnIndex(db, 4, annDir);
  await ready(db);

  const n = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
  assert.equal(n("SELECT count(*) AS n FROM people WHERE id = ?", bo.id), 0);
  assert.equal(n("SELECT count(*) AS n FROM spaces WHERE person_id = ?", bo.id), 0);
  assert.equal(n("SELECT count(*) AS n FROM memories WHERE space_id = ?", boSpace), 0);
  assert.equal(keywordTableOf(db, "memory", boSpace), undefined, "their keyword table is gone");
  assert.equal(indexedTotal(db, "memory"), ownerTexts.length);
  assert.equal(n("SELECT count(*) AS n FROM memory_vec WHERE space_id = ?", boSpace), 0, "vectors");
  assert.equal(n("SELECT count(*) AS n FROM memory_vec"), ownerTexts.length);
  assert.equal(n("SELECT count(*) AS n FROM memory_vec_trash"), 0, "Bo's parked vector");
  assert.equal(n("SELECT count(*) AS n FROM documents WHERE space_id = ?", boSpace), 0);
  // Uploads: Bo's swept, the owner's kept.
  assert.deepEqual(fs.readdirSync(uploads), [ownerDoc!.id]);
  // ANN: Bo's graph is gone from disk and from the manifest; the index holds the owner's vectors only.
  assert.ok(!fs.readdirSync(annDir).some((f) => f.startsWith(encodeURIComponent(boSpace))), "ANN files");
  const manifest = JSON.parse(fs.readFileSync(path.join(annDir, "manifest.json"), "utf8")) as {
    spaces: Record<string, number>;
  };
  assert.deepEqual(Object.keys(manifest.spaces), ["personal"]);
  assert.equal(annFor(db)!.size(), ownerTexts.length);
  // Job history: nothing that names Bo or quotes Bo's memories; the owner's entries stay.
  const history = (db.prepare("SELECT result FROM job_runs").all() as { result: string }[])
    .map((r) => r.result)
    .join("\n");
  assert.doesNotMatch(history, /kumquat/);
  for (const id of [...boIds, bo.id]) assert.ok(!history.includes(id), id);
  assert.match(history, /owner likes plums/);
  assert.deepEqual(checkInvariant(db), []);
  stopAnnIndex(db);
  db.close();
});

test("removal refuses while an import of the person's is unfinished", () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const p = createPerson(s.sqlite, { name: "Cy", login: "cy", passwordHash: "unused", role: "member" });
  // The job's row as the import route makes it (drizzle/0029_import_jobs.sql); no runner works it here.
  insertImportJob(s.sqlite, {
    id: "j1",
    personId: p.id,
    admin: false,
    kind: "chatgpt",
    label: "conversations.json",
    space: null,
    file: null,
    bytesTotal: 1,
    queuedAt: "",
  });
  s.sqlite.prepare("UPDATE import_jobs SET status = 'running' WHERE id = 'j1'").run();
  assert.throws(() => removePersonData(s.sqlite, p.id), /still running/);
  s.sqlite.prepare("UPDATE import_jobs SET status = 'done' WHERE id = 'j1'").run();
  const r = removePersonData(s.sqlite, p.id);
  assert.equal(r.removed.import_jobs, 1, "their finished import is forgotten");
  assert.equal((s.sqlite.prepare("SELECT count(*) AS n FROM import_jobs").get() as { n: number }).n, 0);
});

/** Which of the store's files (db, -wal, -shm) contain these bytes. */
function filesHolding(file: string, needle: Buffer): string[] {
  return [file, `${file}-wal`, `${file}-shm`].filter((f) => fs.existsSync(f) && fs.readFileSync(f).includes(needle));
}

test("after a removal no byte of the person is left in the database files: words, FTS stems, vectors, id", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 8 });
  stores.push(s);
  const db = s.sqlite;
  const bo = createPerson(db, { name: "Bo", login: "bo", passwordHash: "unused", role: "member" });
  const boSpace = `${bo.id}~personal`;
  // Unique words, and the stems FTS5's porter tokenizer stores for them.
  const WORDS = ["zorbulating", "frumiously", "quixotries"];
  const STEMS = ["zorbul", "frumious", "quixotri"];
  const ownerTexts = Array.from({ length: 60 }, (_, i) => `owner note ${i} about plums, pears and the garden`);
  insertMemories(
    db,
    ownerTexts.map((content) => ({ spaceId: "personal", content })),
    ownerTexts.map((t) => hashedVector(t, 8)),
    TEST_MODEL_A,
  );
  const boTexts = Array.from({ length: 30 }, (_, i) => `bo wrote ${WORDS.join(" ")} number ${i}`);
  const boVectors = boTexts.map((t) => hashedVector(t, 8));
  const boIds = insertMemories(
    db,
    boTexts.map((content) => ({ spaceId: boSpace, content })),
    boVectors,
    TEST_MODEL_A,
  );
  softDeleteMemories(db, boIds.slice(0, 3));
  // A forget from before FTS5's secure-delete was on (an older version): its tokens stayed in the index.
  const boTable = keywordTableOf(db, "memory", boSpace)!;
  db.exec(`INSERT INTO "${boTable}" ("${boTable}", rank) VALUES ('secure-delete', 0)`);
  softDeleteMemories(db, boIds.slice(3, 6));
  db.exec(`INSERT INTO "${boTable}" ("${boTable}", rank) VALUES ('secure-delete', 1)`);
  // A space of Bo's deleted earlier, a chat (conversation_fts), recalls, and a note Bo wrote into the owner's
  // shared space (it stays, the owner's, without Bo's id).
  runAs({ personId: bo.id, admin: false }, () => {
    insertMemories(db, [{ spaceId: `${bo.id}~old`, content: `${WORDS[0]} old space` }], [boVectors[0]!], TEST_MODEL_A);
    deleteSpace(db, `${bo.id}~old`);
    const c = createConversation(db, { title: `${WORDS[1]} chat` });
    appendMessages(db, c.id, [{ role: "user", content: `tell me about ${WORDS.join(" ")}` }]);
    recordRetrievals(db, boIds.slice(10, 15));
  });
  setShare(db, "personal", bo.id, "write");
  runAs({ personId: bo.id, admin: false }, () => {
    const [list] = insertMemories(
      db,
      [{ spaceId: "personal", content: "a shopping list for the owner" }],
      [hashedVector("a shopping list for the owner", 8)],
      TEST_MODEL_A,
    );
    // And a fact Bo wrote there (issue 48): it stays the owner's too, without Bo's id.
    insertFacts(
      db,
      "personal",
      [{ text: "The owner needs oat milk.", sources: [list!], origin: "person" }],
      [hashedVector("The owner needs oat milk.", 8)],
      TEST_MODEL_A,
    );
  });
  const annDir = path.join(s.dir, "ann");
  startAnnIndex(db, 8, annDir);
  await ready(db);
  annFor(db)!.save();
  assert.ok(
    fs.readdirSync(annDir).some((f) => f.startsWith(encodeURIComponent(boSpace))),
    "Bo's graph is saved",
  );
  const file = s.file;
  assert.ok(filesHolding(file, Buffer.from(WORDS[0]!)).length > 0, "the word is in the files before");

  const r = removePersonData(db, bo.id);
  assert.equal(r.scrub, "scheduled");
  // The saved ANN graph goes with the removal, not at the next save.
  assert.ok(!fs.readdirSync(annDir).some((f) => f.startsWith(encodeURIComponent(boSpace))), "Bo's graph files");
  const outcome = await scrubInProgress(db);
  for (const w of [...WORDS, ...STEMS, bo.id, "bo wrote"])
    assert.deepEqual(filesHolding(file, Buffer.from(w)), [], `"${w}" is still in the store's files`);
  for (const [i, v] of boVectors.entries())
    assert.deepEqual(filesHolding(file, Buffer.from(v.buffer, v.byteOffset, v.byteLength)), [], `Bo's vector ${i}`);
  assert.equal(fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0, 0, "the -wal file is emptied");
  assert.equal(outcome?.ok, true, JSON.stringify(outcome));
  assert.equal(scrubPending(db), false, "the scrub is recorded done");

  // What stays is the owner's, whole; the note Bo wrote names a removed person.
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  assert.equal(n("SELECT count(*) AS n FROM memories WHERE space_id = 'personal'"), ownerTexts.length + 1);
  assert.equal(n("SELECT count(*) AS n FROM memories WHERE written_by = 'removed'"), 1);
  assert.equal(n("SELECT count(*) AS n FROM facts WHERE written_by = 'removed'"), 1, "Bo's fact names no id");
  assert.equal(n("SELECT count(*) AS n FROM live_counts WHERE space_id LIKE 'p%~%'"), 0, "live counts of Bo's spaces");
  assert.equal(matchCount(db, "memory", "personal", "plums"), ownerTexts.length);
  assert.deepEqual(checkInvariant(db), []);
  stopAnnIndex(db);
});
