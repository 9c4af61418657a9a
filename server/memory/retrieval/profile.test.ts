import assert from "node:assert/strict";
import { after, test } from "node:test";
import { insertFacts } from "../facts/store";
import { insertMemories, recordRetrievals } from "../store";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { rankedProfile, withinTokens } from "./profile";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

test("the profile: current facts only, confirmed first, then the often recalled, each with its memories' pinned flags", () => {
  const s = openTempStore({ model: "axis", dim: 4 });
  stores.push(s);
  const db = s.sqlite;
  const [m1, m2, m3] = insertMemories(
    db,
    ["I am vegetarian", "My sister Lena lives in Porto", "I drive a blue Skoda"].map((content) => ({
      spaceId: "personal",
      content,
      timestamp: "2026-11-01T10:00:00.000Z",
      pinned: content.includes("Skoda"),
    })),
    [axisVector(4, 0), axisVector(4, 1), axisVector(4, 2)],
    "axis",
  );
  const fact = (text: string, sources: string[], replaces: string[] = []) =>
    insertFacts(db, "personal", [{ text, sources, origin: "learned", replaces }], [axisVector(4, 3)], "axis")[0]!;
  const veg = fact("The user is vegetarian", [m1!]);
  const lena = fact("The user's sister Lena lives in Porto", [m2!]);
  const oldCar = fact("The user drives a red Fiat", [m3!]);
  const car = fact("The user drives a blue Skoda", [m3!], [oldCar]);
  recordRetrievals(db, [m2!, m2!, m2!]);
  db.prepare("UPDATE facts SET confirmed_at = ? WHERE id = ?").run("2026-11-02T00:00:00.000Z", car);
  const p = rankedProfile(db, "personal", Date.parse("2026-11-03T00:00:00.000Z"));
  assert.deepEqual(
    p.map((f) => f.id),
    [car, lena, veg],
    "confirmed, then recalled, then the rest; the replaced fact is not in it",
  );
  assert.deepEqual(p[0]!.sources, [{ id: m3!, pinned: true }]);
  assert.deepEqual(p[1]!.sources, [{ id: m2!, pinned: false }]);
  // Whole lines within the budget: "- The user drives a blue Skoda (since …)" is about 12 tokens.
  assert.deepEqual(
    withinTokens(p, 14, 0).map((f) => f.id),
    [car],
  );
  assert.equal(withinTokens(p, 0, 0).length, 0);
});
