import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { FACT_SOURCES_SQL } from "./fact-keys";
import { PROFILE_SQL } from "./profile";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

/**
 * Every turn reads the space's facts with their source memories (the fact keys, the profile). Joined on the
 * space's memory index, SQLite scanned every memory of the space once per fact (npm run bench's factsCost:
 * the profile 25 ms a turn at 400 memories and 300 facts, growing with the store); by id it reads one row each.
 */
for (const [name, sql] of [
  ["the profile (profile.ts)", PROFILE_SQL],
  ["the fact keys' sources (fact-keys.ts)", FACT_SOURCES_SQL],
] as const)
  test(`${name}: a fact's source memories are read by id, not by scanning the space's memories`, () => {
    const s = openTempStore({ model: "axis", dim: 4 });
    stores.push(s);
    const plan = (s.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("personal") as { detail: string }[]).map(
      (r) => r.detail,
    );
    const memories = plan.filter((d) => /^(SEARCH|SCAN) m\b/.test(d));
    assert.equal(memories.length, 1, plan.join("\n"));
    assert.match(memories[0]!, /^SEARCH m USING INDEX sqlite_autoindex_memories_1 \(id=\?\)$/, plan.join("\n"));
  });
