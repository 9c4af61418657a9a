import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openDb } from "../../db";
import { openTempStore } from "../../test/temp-store";
import { annFor, startAnnIndex, stopAnnIndex } from "./ann-registry";
import {
  insertMemories,
  logVectorReset,
  purgeMemories,
  restoreMemories,
  softDeleteMemories,
  updateMemoryContent,
} from "../store";
import { setMeta } from "../../core/meta";
import { vec0Search, vectorSearchManyWithSource, vectorSearchWithSource } from "../retrieval/vector-search";

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
  const live = db.prepare("SELECT rowid AS rid, space_id AS spaceId, embedding FROM memory_vec").all() as {
    rid: number;
    spaceId: string;
    embedding: Buffer;
  }[];
  if (ann.size() !== live.length) problems.push(`index holds ${ann.size()} vectors, memory_vec ${live.length}`);
  for (const row of live) {
    const q = new Float32Array(
      row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength),
    );
    const hits = ann.search(row.spaceId, q, 1);
    if (!hits || hits[0]?.rid !== row.rid)
      problems.push(`rid ${row.rid} in ${row.spaceId}: index answered ${JSON.stringify(hits?.[0])}`);
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
      const items = Array.from({ length: n }, (_, i) => ({
        spaceId: spaces[Math.floor(r() * 3)]!,
        content: `memory ${step}-${i} ${r()}`,
      }));
      live.push(
        ...insertMemories(
          db,
          items,
          items.map(() => randomUnit(r)),
          "test-32d",
        ),
      );
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
  stopAnnIndex(db);
});

test("search through the index matches exact vec0 search, within the space, without soft-deleted memories", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const r = rng(7);
  const idsA = insertMemories(
    db,
    Array.from({ length: 300 }, (_, i) => ({ spaceId: "work", content: `w${i}` })),
    Array.from({ length: 300 }, () => randomUnit(r)),
    "test-32d",
  );
  insertMemories(
    db,
    Array.from({ length: 300 }, (_, i) => ({ spaceId: "home", content: `h${i}` })),
    Array.from({ length: 300 }, () => randomUnit(r)),
    "test-32d",
  );
  const ann = startAnnIndex(db, DIM, null);
  await ann.build();
  softDeleteMemories(db, idsA.slice(0, 100));
  const workRids = new Set(
    (
      db.prepare("SELECT rid FROM memories WHERE space_id = 'work' AND soft_deleted = 0").all() as { rid: number }[]
    ).map((x) => x.rid),
  );
  let agree = 0;
  for (let i = 0; i < 50; i++) {
    const q = randomUnit(r);
    const { hits, source } = vectorSearchWithSource(db, "work", q, 10);
    assert.equal(source, "ann");
    for (const h of hits) assert.ok(workRids.has(h.rid), "hits stay in the space and skip soft-deleted memories");
    const exact = vec0Search(db, "work", q, 10).map((h) => h.rid);
    agree += hits.filter((h) => exact.includes(h.rid)).length;
    assert.ok(
      Math.abs(hits[0]!.similarity - vec0Search(db, "work", q, 1)[0]!.similarity) < 0.01 ||
        !exact.includes(hits[0]!.rid),
    );
  }
  assert.ok(agree / 500 >= 0.98, `recall@10 ${agree / 500}`);
  stopAnnIndex(db);
});

test("a restart loads the saved index when current and rebuilds it when the store moved on", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const annDir = `${s.dir}/ann`;
  const r = rng(9);
  insertMemories(
    s.sqlite,
    Array.from({ length: 200 }, (_, i) => ({ spaceId: "personal", content: `m${i}` })),
    Array.from({ length: 200 }, () => randomUnit(r)),
    "test-32d",
  );
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

  // Another writer moves the store on while the index is closed: the saved index is loaded and caught up
  // on the logged rows instead of rebuilt.
  insertMemories(reopened.sqlite, [{ spaceId: "personal", content: "late" }], [randomUnit(r)], "test-32d");
  const third = startAnnIndex(reopened.sqlite, DIM, annDir);
  await third.build();
  assert.equal(third.loadedFromFile, true, "an older saved index is loaded");
  assert.equal(
    vectorSearchWithSource(reopened.sqlite, "personal", randomUnit(r), 5).source,
    "ann",
    "and caught up before the search",
  );
  assert.equal(third.stats.replayedRows, 1);
  assert.deepEqual(indexAgreesWithStore(reopened.sqlite), []);
  stopAnnIndex(reopened.sqlite);

  // A saved index the log no longer reaches back to (pruned) is rebuilt.
  insertMemories(reopened.sqlite, [{ spaceId: "personal", content: "later" }], [randomUnit(r)], "test-32d");
  reopened.sqlite.exec("DELETE FROM vec_log");
  insertMemories(reopened.sqlite, [{ spaceId: "personal", content: "latest" }], [randomUnit(r)], "test-32d");
  const fourth = startAnnIndex(reopened.sqlite, DIM, annDir);
  await fourth.build();
  assert.equal(
    vectorSearchWithSource(reopened.sqlite, "personal", randomUnit(r), 5).source,
    "vec0",
    "a gap in the log: vec0 serves while it rebuilds",
  );
  await fourth.settled();
  assert.equal(fourth.stats.builds, 2, "loaded, then rebuilt from the store");
  assert.equal(vectorSearchWithSource(reopened.sqlite, "personal", randomUnit(r), 5).source, "ann");
  assert.deepEqual(indexAgreesWithStore(reopened.sqlite), []);
  stopAnnIndex(reopened.sqlite);
  reopened.sqlite.close();
});

test("writes by another connection are caught up from the write log, without a full rebuild", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const r = rng(11);
  const first = insertMemories(
    s.sqlite,
    Array.from({ length: 300 }, (_, i) => ({ spaceId: "personal", content: `m${i}` })),
    Array.from({ length: 300 }, () => randomUnit(r)),
    "test-32d",
  );
  const ann = startAnnIndex(s.sqlite, DIM, null);
  await ann.build();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");

  // Another process (a second connection to the same file) adds, deletes, restores, edits and moves memories.
  const other = openDb(s.file);
  const added = insertMemories(
    other.sqlite,
    Array.from({ length: 40 }, (_, i) => ({ spaceId: i % 2 ? "personal" : "work", content: `o${i}` })),
    Array.from({ length: 40 }, () => randomUnit(r)),
    "test-32d",
  );
  softDeleteMemories(other.sqlite, [first[0]!, first[1]!, added[0]!]);
  restoreMemories(other.sqlite, [first[1]!]);
  updateMemoryContent(other.sqlite, first[2]!, "edited elsewhere", randomUnit(r), "test-32d");
  purgeMemories(other.sqlite, [first[3]!]);
  other.sqlite.close();

  // The next search catches up on the logged rows and is served by the index, which agrees with the store.
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");
  assert.equal(vectorSearchWithSource(s.sqlite, "work", randomUnit(r), 5).source, "ann");
  assert.deepEqual(indexAgreesWithStore(s.sqlite), []);
  assert.equal(ann.stats.builds, 1, "no full rebuild");
  assert.equal(ann.stats.catchUps, 1);
  assert.ok(ann.stats.replayedRows >= 44 && ann.stats.replayedRows <= 46, `replayed ${ann.stats.replayedRows} rows`);

  // This process's own writes interleaved with another's: each is seen once, nothing is lost.
  const mine = insertMemories(s.sqlite, [{ spaceId: "personal", content: "mine" }], [randomUnit(r)], "test-32d");
  const again = openDb(s.file);
  insertMemories(
    again.sqlite,
    Array.from({ length: 600 }, (_, i) => ({ spaceId: "personal", content: `bulk${i}` })),
    Array.from({ length: 600 }, () => randomUnit(r)),
    "test-32d",
  );
  again.sqlite.close();
  softDeleteMemories(s.sqlite, mine);
  // 600 rows are more than a search replays in line: vec0 answers while the index catches up in the background.
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "vec0");
  await ann.settled();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");
  assert.deepEqual(indexAgreesWithStore(s.sqlite), []);
  assert.equal(ann.stats.builds, 1, "still no full rebuild");
  stopAnnIndex(s.sqlite);
});

test("an index update that fails schedules a rebuild: vec0 serves meanwhile, then the index again", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const r = rng(13);
  insertMemories(
    s.sqlite,
    Array.from({ length: 200 }, (_, i) => ({ spaceId: "personal", content: `m${i}` })),
    Array.from({ length: 200 }, () => randomUnit(r)),
    "test-32d",
  );
  const ann = startAnnIndex(s.sqlite, DIM, null);
  await ann.build();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");
  // Inject a failure into the graph the next write updates (the rebuild makes new graphs, without it).
  // (The graphs are space-graphs.ts's, held by the index.)
  type Graphs = { spaces: Map<string, { index: { add: (...a: unknown[]) => void } }> };
  const graph = (ann as unknown as { graphs: Graphs }).graphs.spaces.get("personal")!.index;
  graph.add = () => {
    throw new Error("injected: out of memory");
  };
  const [id] = insertMemories(
    s.sqlite,
    [{ spaceId: "personal", content: "the write the index missed" }],
    [randomUnit(r)],
    "test-32d",
  );
  assert.equal(ann.state, "stale");
  assert.match(ann.error ?? "", /injected/);
  assert.equal(
    vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source,
    "vec0",
    "the broken index is not used",
  );
  await ann.settled();
  assert.equal(ann.state, "ready");
  assert.equal(ann.stats.heals, 1);
  assert.equal(
    vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source,
    "ann",
    "served by the index again",
  );
  assert.deepEqual(indexAgreesWithStore(s.sqlite), [], "the rebuilt index holds the write it had missed");
  const row = s.sqlite.prepare("SELECT rid FROM memories WHERE id = ?").get(id) as { rid: number };
  const v = s.sqlite.prepare("SELECT embedding FROM memory_vec WHERE rowid = ?").get(BigInt(row.rid)) as {
    embedding: Buffer;
  };
  assert.equal(
    ann.search(
      "personal",
      new Float32Array(
        v.embedding.buffer.slice(v.embedding.byteOffset, v.embedding.byteOffset + v.embedding.byteLength),
      ),
      1,
    )![0]!.rid,
    row.rid,
  );
  stopAnnIndex(s.sqlite);
});

test("a re-index swap (logged as a reset) makes a running index rebuild", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const r = rng(17);
  insertMemories(
    s.sqlite,
    Array.from({ length: 50 }, (_, i) => ({ spaceId: "personal", content: `m${i}` })),
    Array.from({ length: 50 }, () => randomUnit(r)),
    "test-32d",
  );
  const ann = startAnnIndex(s.sqlite, DIM, null);
  await ann.build();
  const other = openDb(s.file);
  other.sqlite.transaction(() => {
    logVectorReset(other.sqlite);
    setMeta(
      other.sqlite,
      "vec_generation",
      String(Number(other.sqlite.prepare("SELECT value FROM meta WHERE key='vec_generation'").pluck().get()) + 1),
    );
  })();
  other.sqlite.close();
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "vec0");
  await ann.settled();
  assert.equal(ann.stats.builds, 2);
  assert.equal(vectorSearchWithSource(s.sqlite, "personal", randomUnit(r), 5).source, "ann");
  stopAnnIndex(s.sqlite);
});

test("searchMany: a turn's queries in one batched call get each query's own hits, and vec0's when the index cannot answer", async () => {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const r = rng(7);
  const items = Array.from({ length: 600 }, (_, i) => ({ spaceId: "a", content: `m ${i}` }));
  insertMemories(
    db,
    items,
    items.map(() => randomUnit(r)),
    "test-32d",
  );
  const queries = Array.from({ length: 3 }, () => randomUnit(r));
  // Before the index is built vec0 answers, query by query.
  const before = vectorSearchManyWithSource(db, "a", queries, 20);
  assert.equal(before.source, "vec0");
  assert.deepEqual(
    before.hits,
    queries.map((q) => vec0Search(db, "a", q, 20)),
  );
  const ann = startAnnIndex(db, DIM, null);
  await ann.build();
  const many = ann.searchMany("a", queries, 20)!;
  assert.equal(many.length, 3);
  queries.forEach((q, i) => {
    assert.equal(many[i]!.length, 20);
    assert.deepEqual(many[i], ann.search("a", q, 20), `query ${i}: the batched search is the single one`);
  });
  assert.deepEqual(ann.searchMany("empty", queries, 20), [[], [], []]);
  assert.equal(vectorSearchManyWithSource(db, "a", queries, 20).source, "ann");
  stopAnnIndex(db);
});
