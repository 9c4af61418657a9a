/**
 * The space's background (background.ts) is measured once and reused until the writes since could have
 * changed a tenth of the space, whatever the time: the same object while nothing is written.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { insertMemories } from "../store";
import { backgroundOf } from "./background";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

const DIM = 8;
const vector = (i: number) => Float32Array.from({ length: DIM }, (_, d) => Math.cos(i * (d + 1)));

test("the background is kept until a tenth of the space could have changed, and measured again then", () => {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const add = (from: number, n: number) =>
    insertMemories(
      db,
      Array.from({ length: n }, (_, i) => ({ spaceId: "personal", content: `memory ${from + i}` })),
      Array.from({ length: n }, (_, i) => {
        const v = vector(from + i);
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      }),
      "m",
    );
  add(0, 9);
  assert.equal(backgroundOf(db, "personal", "m"), null, "under 10 memories there is none");
  add(9, 31);
  const first = backgroundOf(db, "personal", "m");
  assert.ok(first && first.pairs === (40 * 39) / 2, JSON.stringify(first?.pairs));
  assert.equal(backgroundOf(db, "personal", "m"), first, "nothing written: the same measurement");
  add(40, 4); // 4 writes of 40: within a tenth
  assert.equal(backgroundOf(db, "personal", "m"), first);
  add(44, 1); // 5 since it was measured: more than a tenth
  const second = backgroundOf(db, "personal", "m");
  assert.notEqual(second, first);
  assert.equal(second!.pairs, (45 * 44) / 2, "measured on the space as it is now");
});
