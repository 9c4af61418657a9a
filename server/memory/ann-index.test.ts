import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openDb } from "../db";
import { openTempStore } from "../test/temp-store";
import { annFor, startAnnIndex, stopAnnIndex } from "./ann-index";
import {
  insertMemories,
  purgeMemories,
  restoreMemories,
  setMeta,
  softDeleteMemories,
  updateMemoryContent,
} from "./store";
import { vec0Search, vectorSearchWithSource } from "./vector-search";

const DIM = 32;

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomUnit(r: () => number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => r() * 2 - 1);
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

/** Every (space, rid) the index answers for, found by querying each live vector for itself. */
function indexAgreesWithStore(db: import("better-sqlite3").Database): string[] {
  const problems: string[] = [];
  const ann = annFor(db)!;
  const live = db.prepare("SELECT rowid AS rid, space_id AS spaceId, embedding FROM memory_vec").all() as { rid: number; spaceId: string; embedding: Buffer }[];
  if (ann.size() !== live.length) problems.push(`index holds ${ann.size()} vectors, memory_vec ${live.length}`);
  for (const row of live) {
    const q = new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength));
    const hits = ann.search(row.spaceId, q, 1);
    if (!hits || hits[0]?.rid !== row.rid) problems.push(`rid ${row.rid} in ${row.spaceId}: index answered ${JSON.stringify(hits?.[0])}`);
  }
  return problems;
}

const stores: { close(): void }[] = [];
after(() => stores.forEach((s) => s.close()));

test("the index and the store agree after a random sequence of add, delete, restore, purge and re-embed", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const ann = startAnnIndex(db, DIM, null);
  await ann.build();
  const r = rng(42);
  const live: string[] = [];
  const deleted: string[] = [];
  const spaces = ["a", "b", "c"];
  for (let step = 0; step < 400; step++) {
    const op = r();
    if (op < 0.45 || live.length < 5) {
      const n = 1 + Math.floor(r() * 4);
      const items = Array.from({ length: n }, (_, i) => ({ spaceId: spaces[Math.floor(r() * 3)]!, content: `memory ${step}-${i} ${r()}` }));
      live.push(...insertMemories(db, items, items.map(() => randomUnit(r)), "test-32d"));
    } else if (op < 0.65) {
      const id = live.splice(Math.floor(r() * live.length), 1)[0]!;
      assert.deepEqual(softDeleteMemories(db, [id]), [id]);
      deleted.push(id);
    } else if (op < 0.8 && deleted.length) {
      const id = deleted.splice(Math.floor(r() * deleted.length), 1)[0]!;
      assert.deepEqual(restoreMemories(db, [id]), [id]);
      live.push(id);
    } else if (op < 0.9) {
      const id = live[Math.floor(r() * live.length)]!;
      updateMemoryContent(db, id, `edited ${step}`, randomUnit(r), "test-32d");
    } else {
      const pool = r() < 0.5 && deleted.length ? deleted : live;
      const id = pool.splice(Math.floor(r() * pool.length), 1)[0]!;
      assert.equal(purgeMemories(db, [id]), 1);
    }
    if (step % 50 === 49) assert.deepEqual(indexAgreesWithStore(db), [], `after step ${step}`);
  }
  assert.deepEqual(indexAgreesWithStore(db), []);
  assert.equal(ann.state, "ready");
});

test("search through the index matches exact vec0 search, within the space, without soft-deleted memories", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const r = rng(7);
  const idsA = insertMemories(db, Array.from({ length: 300 }, (_, i) => ({ spaceId: "work", content: `w${i}` })), Array.from({ length: 300 }, () => randomUnit(r)), "test-32d");
  insertMemories(db, Array.from({ length: 300 }, (_, i) => ({ spaceId: "home", content: `h${i}` })), Array.from({ length: 300 }, () => randomUnit(r)), "test-32d");
  const ann = startAnnIndex(db, DIM, null);
  await ann.build();
  softDeleteMemories(db, idsA.slice(0, 100));
  const workRids = new Set((db.prepare("SELECT rid FROM memories WHERE space_id = 'work' AND soft_deleted = 0").all() as { rid: number }[]).map((x) => x.rid));
  let agree = 0;
  for (let i = 0; i < 50; i++) {
    const q = randomUnit(r);
    const { hits, source } = vectorSearchWithSource(db, "work", q, 10);
    assert.equal(source, "ann");
    for (const h of hits) assert.ok(workRids.has(h.rid), "hits stay in the space and skip soft-deleted memories");
    const exact = vec0Search(db, "work", q, 10).map((h) => h.rid);
    agree += hits.filter((h) => exact.includes(h.rid)).length;
    assert.ok(Math.abs(hits[0]!.similarity - vec0Search(db, "work", q, 1)[0]!.similarity) < 0.01 || !exact.includes(hits[0]!.rid));
  }
  assert.ok(agree / 500 >= 0.98, `recall@10 ${agree / 500}`);
});

test("a restart loads the saved index when current and rebuilds it when the store moved on", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const annDir = `${s.dir}/ann`;
  const r = rng(9);
  insertMemories(s.sqlite, Array.from({ length: 200 }, (_, i) => ({ spaceId: "personal", content: `m${i}` })), Array.from({ length: 200 }, () => randomUnit(r)), "test-32d");
  const first = startAnnIndex(s.sqlite, DIM, annDir);
  await first.build();
  assert.equal(first.loadedFromFile, false);
  stopAnnIndex(s.sqlite); // saves
  s.sqlite.close();

  const reopened = openDb(s.file);
  const second = startAnnIndex(reopened.sqlite, DIM, annDir);
  await second.build();
  assert.equal(second.loadedFromFile, true, "a current saved index is loaded, not rebuilt");
  assert.deepEqual(indexAgreesWithStore(reopened.sqlite), []);
  stopAnnIndex(reopened.sqlite);

  // Another writer moves the store on while the index is closed: the saved file is stale.
  insertMemories(reopened.sqlite, [{ spaceId: "personal", content: "late" }], [randomUnit(r)], "test-32d");
  const third = startAnnIndex(reopened.sqlite, DIM, annDir);
  await third.build();
  assert.equal(third.loadedFromFile, false, "a stale saved index is rebuilt");
  assert.deepEqual(indexAgreesWithStore(reopened.sqlite), []);
  stopAnnIndex(reopened.sqlite);
  reopened.sqlite.close();
});

test("a write the index did not see (another process) sends search back to vec0 until rebuilt", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const r = rng(11);
  insertMemories(s.sqlite, Array.from({ length: 50 }, (_, i) => ({ spaceId: "personal", content: `m${i}` })), Array.from({ length: 50 }, () => randomUnit(r)), "test-32d");
  const ann = startAnnIndex(s.sqlite, DIM, null);
  await ann.build();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");
  // Simulate another process's commit: the generation moves without this index being told.
  const other = openDb(s.file);
  setMeta(other.sqlite, "vec_generation", String(Number(other.sqlite.prepare("SELECT value FROM meta WHERE key='vec_generation'").pluck().get()) + 1));
  other.sqlite.close();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "vec0", "stale index is not used");
  await ann.build();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");
  stopAnnIndex(s.sqlite);
});
