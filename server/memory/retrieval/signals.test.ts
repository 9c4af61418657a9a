/**
 * The typed signal breakdown (signals.ts): a signal a stage declares reaches the result's `signals` with the
 * inputs the stage read, and `moves` (the REST API's, a recalled memory's) is derived from it line for line.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { axisVector, openTempStore } from "../../test/temp-store";
import { insertMemories } from "../store";
import { searchWithVectors } from "./retrieve";
import { defaultSettingsFor } from "./settings";
import { movesOf, SIGNAL_NAMES, SIGNALS } from "./signals";
import { STAGES } from "./stages";

const st = openTempStore({ model: "axis", dim: 4 });
after(() => st.close());

test("every declared signal names a declared stage, a label and what it means", () => {
  for (const name of SIGNAL_NAMES) {
    const spec = SIGNALS[name];
    assert.ok((STAGES as readonly string[]).includes(spec.stage), `${name}: stage ${spec.stage}`);
    assert.ok(spec.label && spec.about, name);
  }
});

test("the stages' signals reach the breakdown with what they read; moves are its lines", () => {
  const now = "2024-09-16T12:00:00.000Z";
  const [garden, seeds] = insertMemories(
    st.sqlite,
    [
      {
        spaceId: "home",
        content: "Garden plans: raised beds by the fence",
        timestamp: "2024-09-15T10:00:00.000Z",
        importance: 4,
      },
      { spaceId: "home", content: "Bought tomato seeds for the garden", timestamp: "2024-06-01T10:00:00.000Z" },
    ],
    [axisVector(4, 0), axisVector(4, 1)],
    "axis",
  );
  const settings = { ...defaultSettingsFor("universal-sentence-encoder-lite"), minConfidence: 0, maxWindowShare: 1 };
  const query = "What were my garden plans yesterday?";
  const r = searchWithVectors(
    st.sqlite,
    { query, spaceId: "home", k: 5, now, tzOffsetMinutes: 0 },
    settings,
    [{ role: "main", text: query }],
    [axisVector(4, 0)],
  );
  const hit = r.results.find((x) => x.id === garden)!;
  assert.ok(hit, "the garden plans are found");
  const named = (n: string) => hit.signals.filter((s) => s.name === n);
  // Stage "union": the memory's cosine and bm25 as the legs scored them, each with its part of the fused score.
  assert.equal(named("vector")[0]?.value, hit.scores.similarity);
  assert.equal(named("fts")[0]?.value, -hit.scores.bm25!);
  assert.ok(named("vector")[0]!.effect! > 0 && named("fts")[0]!.effect! > 0);
  // Stage "filter": the date window the question names, with the boost it applied, and the importance nudge.
  assert.deepEqual(named("date"), [{ name: "date", value: 1, effect: 1 + settings.dateBoost, note: "yesterday" }]);
  assert.deepEqual(named("importance"), [
    { name: "importance", value: 4, effect: 1 + settings.importanceWeight * (4 / 5) },
  ]);
  // Stage "confidence": the three largest parts of its confidence, each its feature's value and logit.
  const parts = named("confidence");
  assert.equal(parts.length, 3);
  for (const p of parts) assert.equal(p.value, hit.features![p.note as keyof typeof hit.features]);
  // moves: the lines of the signals that have one, in the stages' order.
  assert.deepEqual(hit.moves, movesOf(hit.signals));
  assert.match(hit.moves[0]!, /^date ×\d\.\d\d \(in “yesterday”\)$/);
  assert.ok(
    hit.moves.slice(1).every((m) => m.startsWith("confidence: ")),
    hit.moves.join("; "),
  );
  // Outside the window: no date signal, and the other memory's own cosine (0: orthogonal) is still its value.
  const other = r.results.find((x) => x.id === seeds)!;
  assert.ok(!other.signals.some((s) => s.name === "date"));
  assert.equal(other.signals.find((s) => s.name === "vector")?.value, other.scores.similarity);
});
