/**
 * A data folder that cannot take writes (issue 33, item 7): writes answer 503 with "the data folder is
 * not writable" or "disk full" (not 500 "internal error", not 400 on upload), health says ok: false with
 * the reason, and nothing is half-written.
 *
 * How the faults are made: the tests run as root, for whom chmod does not block writes, and a read-only
 * bind mount needs privileges a test does not have. So each fault is produced by the real engine or
 * kernel another way: SQLite refuses every write with SQLITE_READONLY under `PRAGMA query_only` (what a
 * read-only store folder gives), SQLite answers SQLITE_FULL once `PRAGMA max_page_count` is reached (what
 * a full disk gives), the health probe cannot create its file in a store folder that is a path under a
 * regular file (ENOTDIR), and writing to /dev/full gives a real ENOSPC.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { TRPCError } from "@trpc/server";
import { GET as healthRoute } from "../../app/api/health/route";
import { POST as documentsRoute } from "../../app/api/v1/documents/route";
import { POST as memoriesRoute } from "../../app/api/v1/memories/route";
import { createCaller } from "../api/root";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { probeStoreFolder, resetStorageFaults, storageFaultOf } from "../core/storage-fault";
import { queueFor } from "../ingest/queue";
import { checkInvariant } from "../memory/store";
import { openTempStore, rawCounts, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";

const stores: TempStore[] = [];
const savedDataDir = process.env.MEMO_DATA_DIR;
afterEach(() => {
  setAppContext(undefined);
  resetStorageFaults();
});
after(async () => {
  for (const s of stores) {
    await queueFor({ db: s.sqlite, embedder: new TestDimEmbedder() }).stop();
    s.close();
  }
  if (savedDataDir === undefined) delete process.env.MEMO_DATA_DIR;
  else process.env.MEMO_DATA_DIR = savedDataDir;
});

function appOn(): MemoContext & { store: TempStore } {
  const store = openTempStore();
  stores.push(store);
  process.env.MEMO_DATA_DIR = store.dir;
  const ctx = { db: store.sqlite, embedder: new TestDimEmbedder(), store };
  setAppContext(ctx);
  return ctx;
}

const post = (body: unknown) =>
  memoriesRoute(
    new Request("http://127.0.0.1/api/v1/memories", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );

function uploadRequest(name: string, text: string): Request {
  const form = new FormData();
  form.append("file", new Blob([text]), name);
  return new Request("http://127.0.0.1/api/v1/documents", { method: "POST", body: form });
}

async function health() {
  const res = await healthRoute(new Request("http://127.0.0.1/api/health"));
  return { status: res.status, body: (await res.json()) as { ok: boolean; store: { problem: string | null } } };
}

test("a read-only store: REST, tRPC and upload writes answer 503 'not writable', health says ok: false, nothing half-written", async () => {
  const c = appOn();
  assert.equal((await post({ text: "written before the fault" })).status, 201);
  assert.deepEqual((await health()).body.ok, true);
  const before = rawCounts(c.db);

  c.db.pragma("query_only = ON"); // every write now fails in SQLite with SQLITE_READONLY
  const res = await post({ text: "a memory that cannot be saved" });
  assert.equal(res.status, 503);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /the data folder is not writable/);

  await assert.rejects(
    createCaller({ memo: c, headers: new Headers() }).memory.add({ text: "through tRPC" }),
    (e: unknown) =>
      e instanceof TRPCError && e.code === "SERVICE_UNAVAILABLE" && /the data folder is not writable/.test(e.message),
  );

  const up = await documentsRoute(uploadRequest("notes.md", "# Notes\n\nSome text to keep."));
  assert.equal(up.status, 503);
  assert.match(((await up.json()) as { error: { message: string } }).error.message, /the data folder is not writable/);
  assert.deepEqual(fs.readdirSync(queueFor(c).uploadsDir), [], "the staged upload was removed");

  const h = await health();
  assert.equal(h.status, 503);
  assert.equal(h.body.ok, false);
  assert.match(h.body.store.problem ?? "", /the data folder is not writable/);

  c.db.pragma("query_only = OFF");
  assert.deepEqual(rawCounts(c.db), before, "nothing half-written");
  assert.deepEqual(checkInvariant(c.db), []);
  resetStorageFaults();
  assert.equal((await post({ text: "written after the fault is fixed" })).status, 201);
  assert.equal((await health()).body.ok, true);
});

test("a full store: writes answer 503 'disk full' and health says so", async () => {
  const c = appOn();
  assert.equal((await post({ text: "first" })).status, 201);
  const pages = (c.db.pragma("page_count", { simple: true }) as number) + 2;
  c.db.pragma(`max_page_count = ${pages}`); // SQLite answers SQLITE_FULL past this, as on a full disk
  let res: Response | null = null;
  for (let i = 0; i < 50; i++) {
    res = await post({ text: `${"a long memory that takes room ".repeat(300)} ${i}` });
    if (res.status !== 201) break;
  }
  assert.equal(res!.status, 503);
  assert.match(((await res!.json()) as { error: { message: string } }).error.message, /^disk full/);
  const h = await health();
  assert.equal(h.body.ok, false);
  assert.match(h.body.store.problem ?? "", /^disk full/);
  assert.deepEqual(checkInvariant(c.db), [], "the failed write left no partial memory");
});

test("the health probe finds a store folder that cannot be written before anyone writes", async () => {
  const store = openTempStore();
  stores.push(store);
  // A store "folder" that is a path under a regular file: nothing can be created there (ENOTDIR).
  const file = path.join(store.dir, "not-a-folder");
  fs.writeFileSync(file, "x");
  assert.equal(probeStoreFolder(path.join(file, "memory.db"))?.kind, "not-writable");
  // A real ENOSPC from the kernel: the probe's file is made a link to /dev/full.
  const probe = path.join(store.dir, `.write-probe-${process.pid}`);
  fs.symlinkSync("/dev/full", probe);
  try {
    assert.deepEqual(probeStoreFolder(store.file), {
      kind: "full",
      message: storageFaultOf({ code: "ENOSPC", path: store.file })?.message ?? "",
    });
  } finally {
    fs.rmSync(probe, { force: true });
  }
  assert.equal(probeStoreFolder(store.file), null);
  assert.deepEqual(
    fs.readdirSync(store.dir).filter((f) => f.startsWith(".write-probe")),
    [],
  );
});

test("permission errors count as the data folder's only for paths inside it", () => {
  process.env.MEMO_DATA_DIR = "/srv/memo-data";
  assert.equal(storageFaultOf({ code: "EACCES", path: "/srv/memo-data/uploads/x" })?.kind, "not-writable");
  assert.equal(storageFaultOf({ code: "EROFS", path: "/srv/memo-data/memory/memory.db-wal" })?.kind, "not-writable");
  assert.equal(storageFaultOf({ code: "EACCES", path: "/home/someone/file.pdf" }), null);
  assert.equal(storageFaultOf({ code: "SQLITE_READONLY_DBMOVED" })?.kind, "not-writable");
  assert.equal(storageFaultOf({ code: "SQLITE_FULL" })?.kind, "full");
  assert.equal(storageFaultOf({ code: "ENOSPC", path: "/anywhere" })?.kind, "full");
  assert.equal(storageFaultOf(new Error("boom")), null);
});
