/**
 * Edits are dated: editing a memory records updated_at (the Manager shows "edited <date>"), and recency —
 * the tie-break in retrieval order and the date the packed block shows — uses the later of timestamp and
 * edit time, so "prefer the newer fact" sees an edited memory as new. Real store and embedding model.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { editMemory, getManagedMemory } from "../../services/manager-service";
import { search } from "./search";
import { addMemories } from "../store/add";
import type { MemoContext } from "../../core/context";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { applyImportance } from "./quality-importance";
import type { FusedCandidate } from "./union-fusion";
import { packMemories } from "./memory-block";
import { recencyOf } from "./recency";
import { getMemory } from "../store";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

test("recencyOf is the later of timestamp and edit time", () => {
  assert.equal(recencyOf({ timestamp: "2024-01-01T00:00:00.000Z", updatedAt: null }), "2024-01-01T00:00:00.000Z");
  assert.equal(
    recencyOf({ timestamp: "2024-01-01T00:00:00.000Z", updatedAt: "2026-05-01T00:00:00.000Z" }),
    "2026-05-01T00:00:00.000Z",
  );
  assert.equal(
    recencyOf({ timestamp: "2027-01-01T00:00:00.000Z", updatedAt: "2026-05-01T00:00:00.000Z" }),
    "2027-01-01T00:00:00.000Z",
  );
});

test("an edit records updated_at, keeps the timestamp, and shows in the Manager, search results and the packed block", async () => {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  const [[id]] = await addMemories(memo, [
    { text: "My office is on the 3rd floor.", timestamp: "2024-06-15T09:00:00.000Z" },
  ]);
  assert.equal(getManagedMemory(s.sqlite, id!).updatedAt, null);
  const before = Date.now();
  await editMemory(memo, id!, "My office is on the 5th floor now.");
  const m = getMemory(s.sqlite, id!)!;
  assert.equal(m.timestamp, "2024-06-15T09:00:00.000Z", "the event's time stays");
  assert.ok(Date.parse(m.updatedAt!) >= before - 5);
  assert.equal(getManagedMemory(s.sqlite, id!).updatedAt, m.updatedAt);
  const r = await search(memo, { query: "which floor is my office on" });
  const hit = r.results.find((x) => x.id === id)!;
  assert.equal(hit.updatedAt, m.updatedAt);
  const { block } = packMemories([{ ...hit, matchType: hit.matchType }], 6, 1000);
  assert.match(
    block,
    new RegExp(`^- 2024-06-15 \\(edited ${m.updatedAt!.slice(0, 10)}\\): My office is on the 5th floor now\\.`, "m"),
  );
});

test("among equal scores, the memory edited most recently ranks first even if its event is older", () => {
  const cand = (rid: number): FusedCandidate => ({
    rid,
    matchType: "hybrid",
    similarity: 0.9,
    ftsRank: 1,
    bm25: -1,
    vectorRank: 1,
    rrf: 0.03,
    fused: 0.5,
    signals: [],
  });
  const info = new Map([
    [1, { importance: 1, pinned: false, timestamp: "2025-01-01T00:00:00.000Z", updatedAt: null }],
    [2, { importance: 1, pinned: false, timestamp: "2024-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" }],
  ]);
  assert.deepEqual(
    applyImportance([cand(1), cand(2)], (rid) => info.get(rid), 0.2).map((c) => c.rid),
    [2, 1],
  );
  info.get(2)!.updatedAt = null;
  assert.deepEqual(
    applyImportance([cand(2), cand(1)], (rid) => info.get(rid), 0.2).map((c) => c.rid),
    [1, 2],
  );
});
