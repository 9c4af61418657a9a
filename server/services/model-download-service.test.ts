/**
 * First start online, end to end on this machine: a store holding memories of one model (a tiny
 * nomic-bert GGUF on the real llama.cpp path under EmbedderSupervisor), the "nomic" GGUF missing, a local
 * mirror (TEST DOUBLE, server/test/mirror-server.ts) standing in for Hugging Face that drops the
 * connection once. The background download completes and verifies, the embedding server switches to
 * the downloaded file, and the store re-indexes to it. MEMO_OFFLINE=1 and a wrong checksum change nothing.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, test } from "node:test";
import { EmbedderSupervisor } from "../embedder/supervisor";
import { reindexDone } from "../memory/index/reindex-job";
import { HttpEmbedClient } from "../embedder/client";
import { boundModel } from "../memory/store";
import { TINY_NOMIC_FILE, writeTinyNomicGguf } from "../test/gguf/write-gguf";
import { MirrorServer } from "../test/mirror-server";
import { openTempStore, type TempStore } from "../test/temp-store";
import { addMemories } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import {
  modelDownloadStatus,
  resetModelDownloadState,
  startModelDownload,
  switchEmbedder,
} from "./model-download-service";

const NAME = "nomic-embed-text-v1.5.Q8_0.gguf";
const ENV = [
  "MEMO_DATA_DIR",
  "MEMO_MODEL_URL",
  "MEMO_MODEL_SHA256",
  "MEMO_OFFLINE",
  "MEMO_EMBED_MODEL",
  "MEMO_EMBED_PORT",
  "MEMO_ANN",
];
const saved: Record<string, string | undefined> = {};
let work: string;
let served: string;
let sha: string;
let size: number;
let oldModel: string;

before(() => {
  for (const k of ENV) saved[k] = process.env[k];
  for (const k of ENV) delete process.env[k];
  process.env.MEMO_ANN = "off";
  work = fs.mkdtempSync(path.join(os.tmpdir(), "memo-firststart-"));
  oldModel = path.join(work, "old", TINY_NOMIC_FILE);
  fs.mkdirSync(path.dirname(oldModel));
  writeTinyNomicGguf(oldModel, { seed: 1 });
  served = path.join(work, "served.gguf");
  writeTinyNomicGguf(served, { seed: 2 });
  const data = fs.readFileSync(served);
  sha = createHash("sha256").update(data).digest("hex");
  size = data.length;
});

after(() => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  fs.rmSync(work, { recursive: true, force: true });
});

afterEach(() => resetModelDownloadState());

function dataDir(name: string): string {
  const d = path.join(work, name);
  fs.mkdirSync(d, { recursive: true });
  process.env.MEMO_DATA_DIR = d;
  return d;
}

test("missing nomic GGUF, online: downloads in the background (resuming a drop), switches the embedder and re-indexes", {
  timeout: 180_000,
}, async () => {
  const dir = dataDir("online");
  const mirror = await MirrorServer.start({
    file: served,
    name: NAME,
    bytesPerSec: Math.ceil(size / 2),
    dropAtOffset: Math.floor(size / 2),
  });
  process.env.MEMO_MODEL_URL = mirror.url;
  process.env.MEMO_MODEL_SHA256 = sha;
  const sup = new EmbedderSupervisor({
    choice: { kind: "gguf", path: oldModel, reason: "test: the model before the download" },
    preferNode: true,
    healthIntervalMs: 300,
    backoffMinMs: 100,
    log: () => undefined,
  });
  sup.start();
  let store: TempStore | undefined;
  try {
    store = openTempStore();
    const ctx: MemoContext = {
      db: store.sqlite,
      embedder: new HttpEmbedClient(() => sup.ensureHealthy(30_000)),
      embedderStatus: () => sup.status(),
    };
    await addMemories(ctx, [{ text: "my sister lives in Lisbon" }, { text: "the dog loves tennis balls" }]);
    assert.equal(boundModel(store.sqlite)?.model, "nomic-embed-text-v1.5-test-tiny");

    const phases = new Set<string>();
    const running = startModelDownload({
      switchTo: (f) => switchEmbedder(ctx, sup, f),
      log: () => undefined,
      backoffMs: 100,
    });
    assert.ok(running, "a download was started");
    const poll = setInterval(() => phases.add(modelDownloadStatus().phase), 20);
    await running;
    clearInterval(poll);
    const st = modelDownloadStatus();
    assert.equal(st.phase, "done", st.message ?? "");
    assert.ok(phases.has("downloading"), [...phases].join());
    assert.equal(st.done, size);
    assert.equal(mirror.requests.length, 2, "one drop, one resume");
    assert.equal(mirror.requests[1]!.range, `bytes=${Math.floor(size / 2)}-`);

    const file = path.join(dir, "models", NAME);
    assert.equal(createHash("sha256").update(fs.readFileSync(file)).digest("hex"), sha);
    assert.equal(sup.status().model, "nomic-embed-text-v1.5.Q8_0");
    assert.equal(sup.status().fallback, false);
    // The store held the old model's vectors: they are re-embedded with the downloaded model.
    const rec = await reindexDone(store.sqlite);
    assert.equal(rec?.status, "ok");
    assert.deepEqual(boundModel(store.sqlite), { model: "nomic-embed-text-v1.5.Q8_0", dim: 64 });

    // Next start: the GGUF is there, nothing to download.
    resetModelDownloadState();
    assert.equal(startModelDownload(), null);
    assert.equal(modelDownloadStatus().phase, "not_needed");
  } finally {
    store?.close();
    await sup.stop();
    await mirror.close();
  }
});

test("MEMO_OFFLINE=1: no attempt, and the status says why", async () => {
  dataDir("offline");
  const mirror = await MirrorServer.start({ file: served, name: NAME });
  process.env.MEMO_MODEL_URL = mirror.url;
  process.env.MEMO_OFFLINE = "1";
  try {
    assert.equal(startModelDownload(), null);
    const st = modelDownloadStatus();
    assert.equal(st.phase, "skipped");
    assert.match(st.message ?? "", /MEMO_OFFLINE=1/);
    assert.equal(mirror.requests.length, 0);
  } finally {
    delete process.env.MEMO_OFFLINE;
    await mirror.close();
  }
});

test("a file that does not match the checksum is not installed and the embedder is not switched", async () => {
  const dir = dataDir("mismatch");
  const mirror = await MirrorServer.start({ file: served, name: NAME });
  process.env.MEMO_MODEL_URL = mirror.url;
  process.env.MEMO_MODEL_SHA256 = "f".repeat(64);
  let switched = false;
  try {
    await startModelDownload({ switchTo: async () => void (switched = true), log: () => undefined });
    const st = modelDownloadStatus();
    assert.equal(st.phase, "failed");
    assert.match(st.message ?? "", /sha256 mismatch/);
    assert.equal(switched, false);
    assert.deepEqual(fs.readdirSync(path.join(dir, "models")), []);
  } finally {
    await mirror.close();
  }
});
