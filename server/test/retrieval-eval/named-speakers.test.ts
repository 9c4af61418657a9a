import assert from "node:assert/strict";
import { test } from "node:test";
import { generateLife } from "./life";
import { asNamedSpeakers, namedExchange, thirdPerson } from "./named-speakers";

test("questions about the persona in the third person, with the auxiliaries that agree", () => {
  assert.equal(thirdPerson("What ceramics class did I enrol in?", "Sam"), "What ceramics class did Sam enrol in?");
  assert.equal(thirdPerson("When in the day am I sharpest?", "Sam"), "When in the day is Sam sharpest?");
  assert.equal(thirdPerson("What phone do I have currently?", "Sam"), "What phone does Sam have currently?");
  assert.equal(thirdPerson("Am I allergic to anything?", "Sam"), "Is Sam allergic to anything?");
  assert.equal(
    thirdPerson("What trick did you give me for misty spectacles?", "Sam"),
    "What trick did Robin give Sam for misty spectacles?",
  );
  assert.equal(thirdPerson("What did I say my manager was like?", "Sam"), "What did Sam say Sam's manager was like?");
  assert.equal(
    thirdPerson("Is a three-day sailing trip a good idea for me?", "Sam"),
    "Is a three-day sailing trip a good idea for Sam?",
  );
  assert.equal(
    thirdPerson("I'm off to Italy: what's my mum's number?", "Pia"),
    "Pia is off to Italy: what's Pia's mum's number?",
  );
  // Words that only contain the pronouns stay.
  assert.equal(thirdPerson("Is the mayor in Ireland?", "Sam"), "Is the mayor in Ireland?");
});

test("the named history: the same memories, gold and halves, with the roles named", () => {
  assert.equal(
    namedExchange("User: I planted peppers.\nAssistant: Water them well.", "Sam"),
    "Sam: I planted peppers.\nRobin: Water them well.",
  );
  const ds = generateLife();
  const named = asNamedSpeakers(ds);
  assert.equal(named.memories.length, ds.memories.length);
  assert.deepEqual(
    named.questions.map((q) => [q.id, q.half, q.type, q.gold.join()]),
    ds.questions.map((q) => [q.id, q.half, q.type, q.gold.join()]),
  );
  const exchanges = ds.memories.filter((m) => m.text.startsWith("User:"));
  assert.ok(exchanges.length > 1000);
  for (const m of named.memories.filter((x) => exchanges.some((e) => e.key === x.key)))
    assert.ok(m.text.startsWith(`${ds.persona}: `) && !/\bAssistant:/.test(m.text), m.text.slice(0, 60));
  // Every question is about the persona by name, except the how-tos, which stay as asked.
  const firstPerson = named.questions.filter((q) => /\b(I|my|me)\b/.test(q.text) && !/^How (do|can) I\b/.test(q.text));
  assert.deepEqual(
    firstPerson.map((q) => q.text),
    [],
  );
  assert.ok(named.questions.some((q) => q.text === "How do I center a div horizontally and vertically with CSS?"));
  assert.ok(named.questions.some((q) => q.type === "unanswerable" && q.text.includes(`${ds.persona}'s`)));
});

test("the named history stores the same text it shows, with the persona and the other speaker as its speakers", async () => {
  const { chunkSaid } = await import("../../memory/store/chunker");
  const ds = asNamedSpeakers(generateLife());
  for (const m of ds.memories.slice(0, 50)) {
    const [c] = chunkSaid(m.said!);
    assert.equal(c!.content, m.text.split(/\s+/).join(" "));
    assert.deepEqual(
      c!.speakers.map((s) => s.name),
      [ds.persona, "Robin"],
    );
  }
});
