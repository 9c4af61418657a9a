/**
 * The memory techniques (techniques.ts): every one is a retrieval setting, Debug Search's per-query
 * override takes the same values the setting does, and switching one off for a query changes what the
 * search does. Real store and embedding model (USE-lite, in process).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoContext } from "../../core/context";
import { searchInput } from "../../core/validators";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { search } from "./search";
import { defaultSettingsFor, retrievalSettingsSchema } from "./settings";
import { switchedOff, TECHNIQUES, techniqueOn } from "./techniques";
import { addMemories } from "../store/add";

const settingAccepts = (key: string, v: unknown) =>
  retrievalSettingsSchema.shape[key as keyof typeof retrievalSettingsSchema.shape].safeParse(v).success;
const overrideAccepts = (key: string, v: unknown) =>
  searchInput.safeParse({ query: "q", options: { [key]: v } }).success;

test("each technique is a setting; its off and on values are valid for the setting and the per-query override alike", () => {
  assert.equal(new Set(TECHNIQUES.map((t) => t.key)).size, TECHNIQUES.length);
  for (const t of TECHNIQUES) {
    assert.ok(t.key in retrievalSettingsSchema.shape, t.key);
    assert.notEqual(t.off, t.on, t.key);
    for (const v of [t.off, t.on]) {
      assert.ok(settingAccepts(t.key, v), `${t.key}=${v} as a setting`);
      assert.ok(overrideAccepts(t.key, v), `${t.key}=${v} as an override`);
    }
    if (typeof t.off === "number") {
      assert.equal(typeof t.min, "number", t.key);
      for (const v of [t.min! - 0.001, t.max! + 0.001, t.min!, t.max!]) {
        assert.equal(overrideAccepts(t.key, v), settingAccepts(t.key, v), `${t.key}=${v}: the same bounds`);
      }
      assert.equal(overrideAccepts(t.key, t.min! - 0.001), false, `${t.key} below its minimum`);
      assert.equal(overrideAccepts(t.key, "0.5"), false, `${t.key} as a string`);
    } else {
      assert.equal(overrideAccepts(t.key, 1), false, `${t.key} takes a boolean`);
    }
  }
  assert.equal(overrideAccepts("minConfidence", 1.5), false);
  assert.equal(
    overrideAccepts("neighbourGapMinutes", 30),
    false,
    "only the techniques and the threshold are overridable",
  );
});

test("techniqueOn reads the settings: USE-lite has every technique on, nomic all but the dense-query cleaning", () => {
  const lite = defaultSettingsFor("universal-sentence-encoder-lite");
  assert.deepEqual(
    TECHNIQUES.filter((t) => !techniqueOn(t, lite)).map((t) => t.key),
    [],
  );
  const nomic = defaultSettingsFor("nomic-embed-text-v1.5");
  assert.deepEqual(
    TECHNIQUES.filter((t) => !techniqueOn(t, nomic)).map((t) => t.key),
    ["denseMaxDocFraction"],
  );
});

test("switchedOff turns exactly one technique off and leaves every other setting alone", () => {
  const lite = defaultSettingsFor("universal-sentence-encoder-lite");
  for (const t of TECHNIQUES) {
    const off = switchedOff(lite, t);
    assert.equal(techniqueOn(t, off), false, t.key);
    const changed = Object.keys(lite).filter(
      (k) => JSON.stringify(off[k as keyof typeof off]) !== JSON.stringify(lite[k as keyof typeof lite]),
    );
    assert.deepEqual(changed, [t.key]);
    assert.ok(retrievalSettingsSchema.safeParse(off).success, t.key);
  }
});

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

test("switched off for one query, a technique no longer moves any result, and the saved settings are untouched", async () => {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  const now = Date.now();
  const daysAgo = (d: number, min = 0) => new Date(now - d * 86_400_000 + min * 60_000).toISOString();
  const ask = (verb: string) =>
    `User: How ${verb} I pack a suitcase efficiently?\nAssistant: Roll your clothes, put shoes at the bottom and fill the gaps with socks.`;
  await addMemories(memo, [
    { text: ask("do"), timestamp: daysAgo(40) },
    { text: ask("can"), timestamp: daysAgo(30) },
    {
      text: "User: What should I bring on a week-long walking trip?\nAssistant: Layers, a rain jacket and comfortable shoes.",
      timestamp: daysAgo(20),
    },
    // A session of two exchanges a few minutes apart, three days ago: the reply names no tortoise.
    {
      text: "User: Our tortoise Shelly has stopped eating her dandelions.\nAssistant: Is her basking lamp still warm enough?",
      timestamp: daysAgo(3),
    },
    { text: "User: The bulb had blown, I replaced it this morning.\nAssistant: Good.", timestamp: daysAgo(3, 5) },
  ]);
  const moves = async (query: string, options: Record<string, number | boolean> = {}) => {
    const r = await search(memo, { query, options });
    return { r, all: r.results.flatMap((x) => x.moves) };
  };

  const tortoise = "What did I say about my tortoise a few days ago?";
  const on = await moves(tortoise);
  assert.ok(
    on.all.some((m) => m.startsWith("date ×")),
    on.all.join("; "),
  );
  assert.ok(
    on.all.some((m) => m.startsWith("neighbour +")),
    on.all.join("; "),
  );
  assert.ok(!(await moves(tortoise, { neighbourWeight: 0 })).all.some((m) => m.startsWith("neighbour +")));
  const noBoost = await moves(tortoise, { dateBoost: 0 });
  assert.ok(!noBoost.all.some((m) => m.startsWith("date ×")));
  assert.ok(
    noBoost.all.some((m) => m.startsWith("date: in")),
    "still marked as inside the window",
  );
  // The date words go to the date window, not to the dense leg.
  assert.equal(on.r.dense?.[0], "What did I say about my tortoise?");

  const strict = await moves(tortoise, { minConfidence: 1 });
  assert.equal(strict.r.minConfidence, 1);
  assert.equal(strict.r.settings.minConfidence, 1);
  // Overrides are for this query only.
  assert.equal((await moves(tortoise)).r.settings.minConfidence, defaultSettingsFor(on.r.model).minConfidence);
});
