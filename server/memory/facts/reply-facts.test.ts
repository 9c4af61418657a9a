/**
 * What a reply's exchange taught, through the real chat and learning paths (the fixture facts model, a TEST
 * DOUBLE answering from a script): each fact with what it replaced, and undoing that learning — the fact is
 * gone, what it replaced is current again; a fact replaced since cannot be undone before its successor; a
 * fact another reply taught is not this reply's to undo.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ServiceError } from "../../core/errors";
import { replyLearning, undoReplyLearning } from "../../services/learning-service";
import { learningHarness, type LearningHarness } from "../../test/learning-harness";
import { factProblems } from "./invariant";
import { undoLearnedFact } from "./reply-facts";

let h: LearningHarness;
const replies: string[] = [];
before(async () => {
  h = await learningHarness();
  h.fixture.facts.set([
    { when: "moved to Valencia", facts: [{ text: "The user lives in Valencia", replaces: ["lives in Ghent"] }] },
    { when: "settled in Ghent", facts: [{ text: "The user lives in Ghent" }, { text: "The user has a flat" }] },
  ]);
  for (const say of ["I've settled in Ghent, in a flat", "We moved to Valencia last week"]) {
    const events = await h.chat(say);
    await h.settle();
    const done = events.find((e) => e.type === "done") as { message: { id: string } };
    replies.push(done.message.id);
  }
});
after(() => h.close());

test("a reply lists each fact its exchange taught and what it replaced", () => {
  const first = replyLearning(h.memo, replies[0]!)!;
  assert.deepEqual(
    first.facts.map((f) => [f.text, f.current, f.replaced.length]),
    [
      ["The user lives in Ghent", false, 0],
      ["The user has a flat", true, 0],
    ],
  );
  const second = replyLearning(h.memo, replies[1]!)!;
  assert.deepEqual(
    second.facts.map((f) => [f.text, f.current, f.replaced.map((r) => r.text)]),
    [["The user lives in Valencia", true, ["The user lives in Ghent"]]],
  );
});

test("undo: the learned fact goes, what it replaced is current again; not before its successor; not another reply's", () => {
  const ghent = replyLearning(h.memo, replies[0]!)!.facts[0]!;
  const valencia = replyLearning(h.memo, replies[1]!)!.facts[0]!;
  assert.deepEqual(undoLearnedFact(h.db, ghent.id, new Date().toISOString()), { ok: false, reason: "replaced_since" });
  assert.throws(
    () => undoReplyLearning(h.memo, replies[0]!, valencia.id),
    (e: ServiceError) => e.status === 404,
  );
  assert.deepEqual(
    [replyLearning(h.memo, replies[1]!)!.factsAdded, replyLearning(h.memo, replies[1]!)!.factsUndone],
    [1, 0],
  );
  const after = undoReplyLearning(h.memo, replies[1]!, valencia.id);
  assert.deepEqual(after.facts, []);
  // The job wrote one fact and the person took it back: the Facts line says so, then and after a reload.
  assert.deepEqual([after.factsAdded, after.factsUndone], [1, 1]);
  assert.equal(replyLearning(h.memo, replies[1]!)!.factsUndone, 1);
  assert.equal(replyLearning(h.memo, replies[0]!)!.factsUndone, 0, "the other reply's learning is untouched");
  assert.deepEqual(h.currentTexts(), ["The user has a flat", "The user lives in Ghent"]);
  assert.deepEqual(factProblems(h.db), []);
  const first = replyLearning(h.memo, replies[0]!)!;
  assert.ok(first.facts.find((f) => f.text === "The user lives in Ghent")!.current);
  assert.throws(
    () => undoReplyLearning(h.memo, replies[1]!, valencia.id),
    (e: ServiceError) => e.status === 404,
  );
});
