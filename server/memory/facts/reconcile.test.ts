import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_LEARNED_FACT_CHARS, MAX_FACTS_PER_EXCHANGE } from "./extract";
import { checkAnswer, describeReport, MAX_ANSWER_CHARS, sameText, validFromOf } from "./reconcile";

const AT = "2024-06-03T10:00:00.000Z";
const req = {
  exchanges: [{ text: "User: We moved to Lisbon.\nAssistant: Nice!", at: AT }],
  candidates: [
    { id: "f-berlin", text: "The user lives in Berlin." },
    { id: "f-cat", text: "The user has a cat called Miso." },
  ],
};
const answer = (facts: unknown) => JSON.stringify({ facts });

test("a good answer: facts with their checked replaces, dated from the exchange", () => {
  const r = checkAnswer(
    answer([
      { text: "The user lives in Lisbon.", replaces: ["f-berlin"], exchange: 1 },
      { text: "The user works  as a nurse.", replaces: [], exchange: 1 },
    ]),
    req,
  );
  assert.ok(r.ok);
  assert.deepEqual(r.facts, [
    { text: "The user lives in Lisbon.", exchange: 0, replaces: ["f-berlin"], validFrom: AT },
    { text: "The user works as a nurse.", exchange: 0, replaces: [], validFrom: AT },
  ]);
  assert.equal(describeReport(r.report), "");
});

test("bad output is rejected whole, with its kind: empty, not JSON, wrong shape, huge", () => {
  const kind = (raw: string) => {
    const r = checkAnswer(raw, req);
    return r.ok ? "ok" : r.kind;
  };
  assert.equal(kind(""), "empty");
  assert.equal(kind("   \n"), "empty");
  assert.equal(kind("The user lives in Lisbon."), "not_json");
  assert.equal(kind('{"facts": [{"text": "unterminated'), "not_json");
  assert.equal(kind("[]"), "wrong_shape");
  assert.equal(kind('{"fact": []}'), "wrong_shape");
  assert.equal(kind('{"facts": "The user lives in Lisbon"}'), "wrong_shape");
  assert.equal(kind('{"facts": [1, "two", null]}'), "wrong_shape");
  assert.equal(kind(answer([{ text: "x", exchange: 1 }]).padEnd(MAX_ANSWER_CHARS + 1, " ")), "huge");
  assert.equal(
    kind(answer(Array.from({ length: MAX_FACTS_PER_EXCHANGE * 4 + 1 }, (_, i) => ({ text: `f${i}`, exchange: 1 })))),
    "huge",
  );
  assert.equal(kind('{"facts": []}'), "ok", "nothing to keep is a good answer");
  const fenced = answer([{ text: "A fact.", replaces: [], exchange: 1 }]);
  assert.equal(kind(["```json", fenced, "```"].join("\n")), "ok");
});

test("ids that were not listed are dropped, never trusted; a fact stays with what is left", () => {
  const r = checkAnswer(
    answer([{ text: "The user lives in Lisbon.", replaces: ["f-berlin", "someone-elses-fact", 7], exchange: 1 }]),
    req,
  );
  assert.ok(r.ok);
  assert.deepEqual(r.facts[0]!.replaces, ["f-berlin"]);
  assert.deepEqual(r.report.unknownIds, ["someone-elses-fact", "7"]);
  assert.match(describeReport(r.report), /2 unknown fact id/);
});

test("duplicates of a current fact (listed, in the space, or earlier in the answer) are skipped", () => {
  const inSpace = new Set([sameText("The user plays the cello")]);
  const r = checkAnswer(
    answer([
      { text: "the user has a cat called Miso", replaces: [], exchange: 1 },
      { text: "The user plays the cello.", replaces: [], exchange: 1 },
      { text: "The user lives in Lisbon.", replaces: ["f-berlin"], exchange: 1 },
      { text: "The user lives in Lisbon", replaces: ["f-berlin"], exchange: 1 },
    ]),
    req,
    (t) => inSpace.has(sameText(t)),
  );
  assert.ok(r.ok);
  assert.deepEqual(
    r.facts.map((f) => f.text),
    ["The user lives in Lisbon."],
  );
  assert.equal(r.report.duplicates, 3);
});

test("caps: over-long texts, facts beyond the cap per exchange, malformed items and out-of-range exchanges are dropped", () => {
  const many = Array.from({ length: MAX_FACTS_PER_EXCHANGE + 2 }, (_, i) => ({
    text: `Fact number ${i}.`,
    replaces: [],
    exchange: 1,
  }));
  const r = checkAnswer(
    answer([
      { text: "x".repeat(MAX_LEARNED_FACT_CHARS + 1), replaces: [], exchange: 1 },
      { text: "", replaces: [], exchange: 1 },
      { text: "Out of range.", replaces: [], exchange: 2 },
      { text: 5, replaces: [], exchange: 1 },
      ...many,
    ]),
    req,
  );
  assert.ok(r.ok);
  assert.equal(r.facts.length, MAX_FACTS_PER_EXCHANGE);
  assert.equal(r.report.tooLong, 1);
  assert.equal(r.report.overCap, 2);
  assert.equal(r.report.emptyOrMalformed, 3);
});

test("a replaced id named twice replaces once (by the first fact naming it); exchange may be left out for one exchange", () => {
  const r = checkAnswer(
    answer([
      { text: "The user lives in Lisbon.", replaces: ["f-berlin", "f-berlin"] },
      { text: "The user lives near the sea.", replaces: ["f-berlin"] },
    ]),
    req,
  );
  assert.ok(r.ok);
  assert.deepEqual(
    r.facts.map((f) => f.replaces),
    [["f-berlin"], []],
  );
});

test("validFrom: a date the fact's text gives, relative to the exchange; a later date (a plan) or none: the exchange's time", () => {
  assert.equal(validFromOf("The user started at Acme in March 2024.", AT).slice(0, 7), "2024-03");
  assert.equal(validFromOf("The user moved to Lisbon yesterday.", AT).slice(0, 10), "2024-06-02");
  assert.equal(validFromOf("The user plans to move to Porto in September 2024.", AT), AT);
  assert.equal(validFromOf("The user lives in Lisbon.", AT), AT);
  const batch = checkAnswer(
    answer([
      { text: "The user got a dog in January 2023.", replaces: [], exchange: 2 },
      { text: "The user likes tea.", replaces: [], exchange: 1 },
    ]),
    { exchanges: [req.exchanges[0]!, { text: "User: …", at: "2025-01-01T00:00:00.000Z" }], candidates: [] },
  );
  assert.ok(batch.ok);
  assert.deepEqual(
    batch.facts.map((f) => [f.exchange, f.validFrom.slice(0, 7)]),
    [
      [1, "2023-01"],
      [0, "2024-06"],
    ],
  );
});
