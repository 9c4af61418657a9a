/**
 * Nothing the user removed comes back, across real restarts (issue "Memory you can trust"): chat turns
 * and two documents sharing a section are written; then an edit, a purge, a /forget and a document
 * delete, each followed by a start of the real app (server/test/crash-harness.ts --drain: server/boot.ts
 * with its start-up recovery of chat exchanges and documents, run to the end, then SIGTERM). After each
 * start the memories are exactly what the user left, and the three-table invariant holds.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { type BundledHarness, bundleHarness } from "../test/bundle-harness";
import { englishText } from "../test/english-text";

const HARNESS = path.join(process.cwd(), "server", "test", "crash-harness.ts");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-restart-"));
process.env.MEMO_DATA_DIR = dataDir;
process.env.MEMO_ANN = "off";

let embedServer: ChildProcess;
let embedUrl: string;
let fixture: OpenAIFixtureServer;
/** The harness compiled once for the file's starts (server/test/bundle-harness.ts says why). */
let harness: BundledHarness;

before(async () => {
  harness = await bundleHarness(HARNESS);
  fixture = await OpenAIFixtureServer.start();
  embedServer = spawn(
    process.execPath,
    ["--import", "tsx", path.join(process.cwd(), "server", "embedder", "main.ts"), "--port", "0", "--watch-stdin"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  embedUrl = await new Promise<string>((resolve, reject) => {
    let port = 0;
    readline.createInterface({ input: embedServer.stdout! }).on("line", (l) => {
      if (l.includes('"listening"')) port = (JSON.parse(l) as { port: number }).port;
      if (l.includes('"ready"')) resolve(`http://127.0.0.1:${port}`);
    });
    embedServer.once("exit", () => reject(new Error("the embedding server exited")));
  });
});
after(async () => {
  embedServer.kill("SIGTERM");
  await fixture.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  harness?.dispose();
});

/** Start the app on the data folder, let its start-up recovery finish, stop it with SIGTERM. */
function restartApp(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [harness.file, "--drain", "--embed-url", embedUrl], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MEMO_DATA_DIR: dataDir, MEMO_EMBED_MODEL: "use-lite", MEMO_ANN: "off" },
    });
    const log: string[] = [];
    child.stderr!.on("data", (d: Buffer) => log.push(d.toString()));
    readline.createInterface({ input: child.stdout! }).on("line", (l) => {
      log.push(l);
      if (l === "DRAINED") child.kill("SIGTERM");
    });
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(guard);
      if (code === 0) resolve(log.join("\n"));
      else reject(new Error(`the app exited with ${code}\n${log.join("\n").slice(-3000)}`));
    });
  });
}

test("edit, purge, /forget and delete-document, each followed by a restart, leave exactly what the user left", {
  timeout: 300_000,
}, async () => {
  const { getDb } = await import("../db");
  const { HttpEmbedClient } = await import("../embedder/client");
  const { checkInvariant, getMemory } = await import("../memory/store");
  const { PersistQueue } = await import("../chat/exchange-queue");
  const { runTurn } = await import("../chat/turn");
  const { saveProviderSettings } = await import("../chat/providers");
  const { addDocument, deleteDocument, getDocumentOr404 } = await import("../services/document-service");
  const { queueFor } = await import("../ingest/queue");
  const { editMemory, purgeMany } = await import("../services/manager-service");

  const db = getDb().sqlite;
  const memo = { db, embedder: new HttpEmbedClient(async () => embedUrl) };
  const queue = new PersistQueue(() => memo, { log: () => undefined });
  saveProviderSettings(db, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL }, timeoutSec: 5 });

  const say = async (message: string, conversationId?: string) => {
    let conv = "";
    let assistant = "";
    for await (const ev of runTurn({ memo, persist: queue }, { space: "restart", message, conversationId })) {
      if (ev.type === "start") conv = ev.conversation.id;
      if (ev.type === "done" || ev.type === "command") assistant = ev.message.id;
      if (ev.type === "error") throw new Error(ev.message);
    }
    await queue.drain();
    return { conv, assistant };
  };
  const memoryOf = (assistantId: string) => {
    const ids = JSON.parse(
      (db.prepare("SELECT memory_ids AS ids FROM messages WHERE id = ?").get(assistantId) as { ids: string }).ids,
    ) as string[];
    assert.equal(ids.length, 1, "one memory per short exchange");
    return ids[0]!;
  };
  const snapshot = () => ({
    memories: db.prepare("SELECT id, content, soft_deleted AS sd FROM memories ORDER BY id").all(),
    links: db.prepare("SELECT document_id, memory_id FROM document_chunks ORDER BY document_id, memory_id").all(),
    documents: db.prepare("SELECT id, status FROM documents ORDER BY id").all(),
  });
  const restartKeeps = async (what: string) => {
    const before = snapshot();
    await restartApp();
    assert.deepEqual(snapshot(), before, `after ${what} and a restart, the store is exactly as the user left it`);
    assert.deepEqual(checkInvariant(db), []);
  };

  const a = await say("My bicycle is a green Gazelle with a wicker basket.");
  const b = await say("The spare house key is under the blue flowerpot.", a.conv);
  const c = await say("Our quiz team is called The Walrus Collective.", a.conv);
  const shared = `# Shared section\n\n${englishText(6000, "restart-shared")}`;
  const doc1 = await addDocument(
    memo,
    "one.md",
    Buffer.from(`${shared}\n\n# Only one\n\n${englishText(400, "restart-one")}`),
    "restart",
  );
  const doc2 = await addDocument(
    memo,
    "two.md",
    Buffer.from(`${shared}\n\n# Only two\n\n${englishText(400, "restart-two")}`),
    "restart",
  );
  await queueFor(memo).whenIdle();
  assert.equal(getDocumentOr404(memo, doc2.id).status, "done");
  await restartKeeps("writing");

  // 1. Edit: the edited text stays, the original is not stored again.
  const aId = memoryOf(a.assistant);
  const original = getMemory(db, aId)!.content;
  await editMemory(memo, aId, "My bicycle is a red Batavus now (I sold the Gazelle).");
  await restartKeeps("an edit");
  assert.equal(
    (db.prepare("SELECT count(*) AS n FROM memories WHERE content = ?").get(original) as { n: number }).n,
    0,
    "the original text did not come back",
  );

  // 2. Purge: gone for good, and stays gone.
  // (Later replies of the fixture echo recalled memories, so other exchanges may quote this one: compare whole texts.)
  const bId = memoryOf(b.assistant);
  const bText = getMemory(db, bId)!.content;
  purgeMany(db, [bId]);
  await restartKeeps("a purge");
  assert.equal(getMemory(db, bId), undefined);
  assert.equal(
    (db.prepare("SELECT count(*) AS n FROM memories WHERE content = ?").get(bText) as { n: number }).n,
    0,
    "the purged exchange was not stored again",
  );

  // 3. /forget in the chat (one match, not pinned: no confirmation needed).
  const cId = memoryOf(c.assistant);
  const cText = getMemory(db, cId)!.content;
  await say("/forget Walrus Collective", a.conv);
  assert.equal(getMemory(db, cId)!.softDeleted, true);
  await restartKeeps("a /forget");
  assert.deepEqual(
    db.prepare("SELECT id, soft_deleted AS sd FROM memories WHERE content = ?").all(cText),
    [{ id: cId, sd: 1 }],
    "forgotten, restorable, and not stored again",
  );

  // 4. Delete a document: its own chunks go, the shared ones stay with the other document.
  const sharedIds = (
    db
      .prepare(
        "SELECT a.memory_id AS id FROM document_chunks a JOIN document_chunks b ON b.memory_id = a.memory_id AND b.document_id = ? WHERE a.document_id = ?",
      )
      .all(doc2.id, doc1.id) as { id: string }[]
  ).map((r) => r.id);
  assert.ok(sharedIds.length >= 1, "the two documents share at least one chunk");
  const total2 = getDocumentOr404(memo, doc2.id).memories;
  await deleteDocument(memo, doc1.id);
  for (const id of sharedIds) assert.equal(getMemory(db, id)?.softDeleted, false, "a shared chunk stays");
  assert.equal(getDocumentOr404(memo, doc2.id).memories, total2, "the other document keeps all its chunks");
  await restartKeeps("deleting a document");
  assert.equal(db.prepare("SELECT 1 FROM documents WHERE id = ?").get(doc1.id), undefined);
});
