/**
 * The getting-started checklist notices a finished import (issue 55): "Import your history" is done once an
 * import of the person's has finished, and stays done after a restart (the conversations it left); another
 * person's import does not tick theirs. Real store, the bundled embedding model in process.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoContext } from "../core/context";
import { runAs } from "../core/acting";
import { createPerson } from "../auth/people";
import { writeImportedConversation } from "../chat/imported-conversations";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { importAndWait } from "../test/import-jobs";
import { forgetImportJobsOf } from "./import-jobs";
import { importTarget } from "./import/registry";
import { importProgress, setupStatus } from "./setup-service";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

const file = [
  {
    uuid: "conv-1",
    name: "Seed swap",
    created_at: "2024-02-01T10:00:00Z",
    chat_messages: [
      { sender: "human", text: "Where is the seed swap this year?", created_at: "2024-02-01T10:00:00Z" },
      { sender: "assistant", text: "At the community hall on Elm Road.", created_at: "2024-02-01T10:00:03Z" },
    ],
  },
];

test("an import's end ticks 'Import your history' for its person, not for another", async () => {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  const bob = createPerson(s.sqlite, { name: "Bob", login: "bob", role: "member", passwordHash: "x" }).id;
  const asBob = <T>(fn: () => T) => runAs({ personId: bob, admin: false }, fn);
  assert.equal(asBob(() => setupStatus(memo)).imports.done, false);
  const job = await asBob(async () => importAndWait(memo, "claude", file, importTarget("claude", undefined)));
  assert.equal(job.status, "done", job.error ?? "");
  assert.equal(asBob(() => setupStatus(memo)).imports.done, true);
  assert.equal(
    runAs({ personId: "owner", admin: true }, () => importProgress(s.sqlite)).done,
    false,
    "not the owner's",
  );
  // After a restart the job list is empty; the conversations the import left still say it was done.
  forgetImportJobsOf(s.sqlite, bob);
  assert.equal(asBob(() => importProgress(s.sqlite)).done, true);
});

test("an imported conversation alone (no job since the start) counts; a chat started in Memo does not", () => {
  const s = openTempStore();
  stores.push(s);
  assert.equal(importProgress(s.sqlite).done, false);
  s.sqlite.prepare("INSERT INTO spaces (id) VALUES ('personal') ON CONFLICT DO NOTHING").run();
  s.sqlite
    .prepare(
      "INSERT INTO conversations (id, space_id, title) VALUES ('00000000-0000-4000-8000-000000000001', 'personal', 'Mine')",
    )
    .run();
  assert.equal(importProgress(s.sqlite).done, false);
  writeImportedConversation(s.sqlite, "personal", {
    from: "claude",
    source: "claude:conv-2",
    title: "Old chat",
    time: "2024-01-01T00:00:00Z",
    messages: [{ role: "user", content: "hello", time: null }],
  });
  assert.equal(importProgress(s.sqlite).done, true);
});
