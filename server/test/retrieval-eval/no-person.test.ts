import assert from "node:assert/strict";
import { test } from "node:test";
import { generateLife } from "./life";
import { asNoPerson, speaksOnlyThroughPossessives, withoutPerson } from "./no-person";

test("questions without the person: my/our become the, a kinship word becomes a name", () => {
  assert.equal(withoutPerson("Which breed is my four-legged buddy?"), "Which breed is the four-legged buddy?");
  assert.equal(withoutPerson("When is my dad's knee replacement?"), "When is Dad's knee replacement?");
  assert.equal(withoutPerson("Our anniversary dinner, where is it?"), "The anniversary dinner, where is it?");
  // Words that only contain the possessives stay.
  assert.equal(withoutPerson("Is the mystery solved?"), "Is the mystery solved?");
});

test("only questions whose sole first-person words are my/our are rewritten, with gold and halves kept", () => {
  const base = {
    id: "q",
    half: "tuning" as const,
    type: "single-hop" as const,
    gold: ["a:b"],
    at: "2025-06-01T12:00:00Z",
  };
  assert.equal(speaksOnlyThroughPossessives({ ...base, text: "What's attacking my peppers?", context: [] }), true);
  assert.equal(speaksOnlyThroughPossessives({ ...base, text: "How did I injure my leg?", context: [] }), false);
  assert.equal(
    speaksOnlyThroughPossessives({
      ...base,
      text: "What's the name of my instructor?",
      context: ["I started lessons."],
    }),
    false,
  );
  assert.equal(
    speaksOnlyThroughPossessives({ ...base, text: "What is the capital of Australia?", context: [] }),
    false,
  );
  const ds = generateLife();
  const np = asNoPerson(ds);
  const byId = new Map(ds.questions.map((q) => [q.id, q]));
  assert.ok(np.questions.length >= 60, `${np.questions.length} questions`);
  for (const half of ["tuning", "reporting"]) assert.ok(np.questions.some((q) => q.half === half && q.gold.length));
  for (const q of np.questions) {
    const orig = byId.get(q.id.replace(/-np$/, ""))!;
    assert.deepEqual([q.gold, q.half, q.type, q.at], [orig.gold, orig.half, orig.type, orig.at]);
    assert.doesNotMatch([q.text, ...q.context].join(" "), /\b(my|our|I|me|we|us)\b/i);
  }
  assert.equal(np.memories, ds.memories);
});
