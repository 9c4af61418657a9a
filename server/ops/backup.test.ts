import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { openDb } from "../db";
import { retrieve } from "../memory/retrieval/retrieve";
import { defaultSettingsFor } from "../memory/retrieval/settings";
import { checkInvariant, insertMemories } from "../memory/store";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { waitUntil } from "../test/wait-until";
import { openTempStore } from "../test/temp-store";
import { backupDatabase } from "./backup";

test("a backup taken while another process writes is consistent, restorable and searchable", async () => {
  const embedder = await inProcessEmbedder();
  const { model, dim } = await embedder.info();
  const s = openTempStore({ model, dim });
  try {
    const texts = ["My sister Ana lives in Lisbon", "The dog Rex loves tennis balls", "Tax filing is due on April 15"];
    insertMemories(
      s.sqlite,
      texts.map((content) => ({ spaceId: "personal", content })),
      await embedder.embedDocuments(texts),
      model,
    );
    // A second process keeps writing while the backup runs.
    const writer = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import { openDb } from "./server/db/index.ts"; import { insertMemories } from "./server/memory/store/index.ts";
         const db = openDb(${JSON.stringify(s.file)}).sqlite;
         const v = () => { const a = new Float32Array(${dim}); a[Math.floor(Math.random()*${dim})] = 1; return a; };
         const end = Date.now() + 1500; let i = 0;
         while (Date.now() < end) insertMemories(db, [{ spaceId: "personal", content: "filler " + i++ }], [v()], ${JSON.stringify(model)});
         db.close();`,
      ],
      { stdio: "inherit", cwd: process.cwd() },
    );
    // The backup starts once the writer is writing (its first row committed), however long its start took.
    await waitUntil(() => (s.sqlite.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n, {
      what: "the second process's first write",
      done: (n) => n > texts.length,
      timeoutMs: 30_000,
    });
    const dest = path.join(s.dir, "backups", "copy.db");
    const r = await backupDatabase(s.file, dest);
    await new Promise((resolve) => writer.once("exit", resolve));
    assert.ok(r.bytes > 0);
    assert.equal(fs.statSync(dest).mode & 0o777, 0o600, "backups are private to the owner");
    await assert.rejects(() => backupDatabase(s.file, dest), /exists/, "never overwrites a backup");

    const restored = openDb(dest);
    try {
      assert.deepEqual(checkInvariant(restored.sqlite), []);
      const res = await retrieve(
        restored.sqlite,
        embedder,
        { query: "where does my sister live?", spaceId: "personal", k: 3 },
        defaultSettingsFor(model),
      );
      assert.match(res.results[0]!.content, /Lisbon/);
    } finally {
      restored.sqlite.close();
    }
  } finally {
    s.close();
  }
});

test("npm run backup says the key file is not in the backup, and how to keep both (issue 33 item 10)", () => {
  const s = openTempStore();
  try {
    const out = path.join(s.dir, "copy.db");
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/backup.ts", "--out", out], {
      env: { ...process.env, MEMO_DATA_DIR: s.dir, MEMO_DB_PATH: s.file },
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(fs.existsSync(out));
    const keyFile = path.join(s.dir, "secret.key");
    assert.match(
      r.stdout,
      new RegExp(`the key file ${keyFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is NOT in this backup`),
    );
    assert.match(r.stdout, /Keep a copy of the key file somewhere\s+other than the backups/);
    assert.match(r.stdout, /put both back/);
  } finally {
    s.close();
  }
});
