/**
 * Facts as recall keys (fact-keys.ts) and the "What I know" block (fact-block.ts), end to end on a real
 * store with the bundled embedding model (USE-lite, in process).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { insertFacts } from "../facts/store";
import { insertMemories, softDeleteMemories } from "../store";
import { factBlock, factLine, factsToPack } from "./fact-block";
import { spaceFacts } from "./fact-keys";
import { retrieve } from "./retrieve";
import { defaultSettingsFor, type RetrievalSettings } from "./settings";

let s: TempStore;
let emb: InProcessEmbedder;
let model: string;
let base: RetrievalSettings;
const mem: Record<string, string> = {};
const fact: Record<string, string> = {};

// Exchanges whose words do not say what they are about; the facts learned from them do.
const EXCHANGES: Record<string, [string, string]> = {
  berlin: [
    "User: we finally signed the lease near the Spree, so Berlin it is. Assistant: congratulations on the flat!",
    "2024-03-10T12:00:00.000Z",
  ],
  lisbon: [
    "User: the movers came today, the boxes are all in Alfama now. Assistant: enjoy the new place!",
    "2024-06-20T12:00:00.000Z",
  ],
  cat: [
    "User: she knocked the plant over again. Assistant: she does love that windowsill.",
    "2024-05-01T12:00:00.000Z",
  ],
  tax: ["User: I need to file my tax return before April 15. Assistant: noted.", "2024-03-01T12:00:00.000Z"],
};

before(async () => {
  emb = await inProcessEmbedder();
  ({ model } = await emb.info());
  base = defaultSettingsFor(model);
  s = openTempStore({ model, dim: 512 });
  const keys = Object.keys(EXCHANGES);
  const ids = insertMemories(
    s.sqlite,
    keys.map((k) => ({ spaceId: "personal", content: EXCHANGES[k]![0], timestamp: EXCHANGES[k]![1] })),
    await emb.embedDocuments(keys.map((k) => EXCHANGES[k]![0])),
    model,
  );
  keys.forEach((k, i) => (mem[k] = ids[i]!));
  const add = async (text: string, source: string, replaces?: string[]) =>
    insertFacts(
      s.sqlite,
      "personal",
      [{ text, sources: [mem[source]!], origin: "learned", ...(replaces ? { replaces } : {}) }],
      await emb.embedDocuments([text]),
      model,
    )[0]!;
  fact.berlin = await add("The user lives in Berlin", "berlin");
  fact.lisbon = await add("The user moved to Lisbon and lives there now", "lisbon", [fact.berlin]);
  fact.cat = await add("The user has a cat named Miso", "cat");
  // Another space's fact about the same thing: never a key here.
  insertMemories(
    s.sqlite,
    [{ spaceId: "work", content: "quarterly numbers" }],
    await emb.embedDocuments(["quarterly numbers"]),
    model,
  );
});
after(() => s.close());

const ask = (query: string, over: Partial<RetrievalSettings> = {}, at?: string) =>
  retrieve(
    s.sqlite,
    emb,
    { query, spaceId: "personal", model, now: at, tzOffsetMinutes: 0 },
    { ...base, qualityFilter: false, ...over },
  );

test("a question that matches a fact finds the exchange it came from, and says so (via)", async () => {
  const r = await ask("what is the name of my cat?");
  const hit = r.results.find((m) => m.id === mem.cat);
  assert.ok(hit, "the exchange behind the fact is found");
  assert.equal(r.results[0]!.id, mem.cat, "and ranked first");
  assert.deepEqual(hit.via, { factId: fact.cat, text: "The user has a cat named Miso" });
  // Without the fact keys the exchange's own words ("she knocked the plant over") do not say "cat named".
  const off = await ask("what is the name of my cat?", { weights: { ...base.weights, factVector: 0, factFts: 0 } });
  assert.equal(off.results.find((m) => m.id === mem.cat)?.via, undefined);
  const offHit = off.results.find((m) => m.id === mem.cat);
  assert.ok(
    !offHit || offHit.scores.confidence < hit.scores.confidence,
    "the fact is what makes Memo sure of it (confidence's fact features)",
  );
});

test("the current value is what the block states: a replaced fact speaks through the fact that replaced it", async () => {
  const r = await ask("where do I live now?");
  const facts = factsToPack(r.results.slice(0, 6));
  assert.ok(facts.length > 0, JSON.stringify(r.results.map((m) => [m.content.slice(0, 30), m.fact])));
  assert.equal(facts[0]!.id, fact.lisbon, "the current fact first");
  assert.ok(!facts.some((f) => f.id === fact.berlin), "the old value is never presented as current");
  const block = factBlock(facts, 500, 0).block;
  assert.match(block, /^\[What I know\]\n- The user moved to Lisbon and lives there now \(since 2024-06-20\)/);
});

test("a replaced fact is stated for a question about its own time, with until when it held", async () => {
  const r = await ask("where did I live in April 2024?", {}, "2024-12-01T12:00:00.000Z");
  const facts = factsToPack(r.results.slice(0, 6));
  const berlin = facts.find((f) => f.id === fact.berlin);
  assert.ok(berlin, JSON.stringify(facts));
  assert.equal(berlin.current, false);
  assert.equal(factLine(berlin, 0), "- The user lives in Berlin (from 2024-03-10 until 2024-06-20; no longer so)");
});

test("a space without facts ranks exactly as with fact keys switched off", async () => {
  const off = { weights: { ...base.weights, factVector: 0, factFts: 0 } };
  const a = await retrieve(s.sqlite, emb, { query: "quarterly", spaceId: "work", model }, base);
  const b = await retrieve(s.sqlite, emb, { query: "quarterly", spaceId: "work", model }, { ...base, ...off });
  const strip = (x: typeof a) => JSON.stringify(x.results.map((m) => [m.id, m.scores, m.features]));
  assert.equal(strip(a), strip(b));
});

test("a fact whose every source is forgotten is no key; the space's facts are cached until its own writes", async () => {
  const before = spaceFacts(s.sqlite, "personal", model);
  assert.equal(spaceFacts(s.sqlite, "personal", model), before, "served from the cache");
  insertMemories(
    s.sqlite,
    [{ spaceId: "work", content: "more numbers" }],
    await emb.embedDocuments(["more numbers"]),
    model,
  );
  assert.equal(spaceFacts(s.sqlite, "personal", model), before, "another space's write does not refresh it");
  softDeleteMemories(s.sqlite, [mem.cat!]);
  assert.ok(!spaceFacts(s.sqlite, "personal", model).some((f) => f.id === fact.cat));
  const r = await ask("what is the name of my cat?");
  assert.ok(!r.results.some((m) => m.via?.factId === fact.cat));
});

test("the block keeps whole lines within its budget", () => {
  const f = { id: "x", text: "a".repeat(200), validFrom: "2024-01-01T00:00:00.000Z", validTo: null, current: true };
  assert.equal(factBlock([f], 20, 0).block, "");
  assert.equal(factBlock([f, { ...f, id: "y", text: "short" }], 30, 0).used.length, 1);
});
