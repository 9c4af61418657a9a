import assert from "node:assert/strict";
import { test } from "node:test";
import { evidenceIds, halfOf, parseSessionDate, readConversation, recallAt, summarise } from "./locomo";

test("evidence ids: the file's quirks are read, duplicates dropped", () => {
  assert.deepEqual(evidenceIds(["D1:3", "D8:6; D9:17", "D:11:26", "D30:05", "D", "D1:3"]), [
    "D1:3",
    "D8:6",
    "D9:17",
    "D11:26",
    "D30:5",
  ]);
  assert.deepEqual(evidenceIds(undefined), []);
});

test("session dates: 12-hour clock, day month year, read as UTC", () => {
  assert.equal(parseSessionDate("1:56 pm on 8 May, 2023"), "2023-05-08T13:56:00.000Z");
  assert.equal(parseSessionDate("12:09 am on 13 September, 2023"), "2023-09-13T00:09:00.000Z");
  assert.throws(() => parseSessionDate("yesterday"), /unreadable session date/);
});

test("exchanges pair turns, append photos, drop evidence that does not exist and questions left without any", () => {
  const c = readConversation({
    sample_id: "conv-44",
    conversation: {
      speaker_a: "A",
      speaker_b: "B",
      session_1_date_time: "1:00 pm on 1 May, 2023",
      session_1: [
        { speaker: "A", dia_id: "D1:1", text: "Hi" },
        { speaker: "B", dia_id: "D1:2", text: "Look", blip_caption: "a dog on a beach" },
        { speaker: "A", dia_id: "D1:3", text: "Nice" },
      ],
      session_2_date_time: "2:00 pm on 3 May, 2023",
      session_2: [],
    },
    qa: [
      { question: "q1", evidence: ["D1:3", "D4:36"], category: 4 },
      { question: "q2", evidence: ["D4:36"], category: 3 },
      { question: "q3", evidence: ["D1:1"], category: 5 },
    ],
  });
  assert.equal(c.half, "reporting");
  assert.deepEqual(
    c.exchanges.map((e) => [e.turns, e.text]),
    [
      [["D1:1", "D1:2"], "A: Hi\nB: Look [shares a photo of a dog on a beach]"],
      [["D1:3"], "A: Nice"],
    ],
  );
  // Each turn's speaker comes from the file's `speaker` field, to be stored as the memory's speakers.
  assert.deepEqual(
    c.exchanges.map((e) => e.said.map((s) => s.name)),
    [["A", "B"], ["A"]],
  );
  assert.deepEqual(c.questions, [{ question: "q1", category: 4, evidence: ["D1:3"] }]);
  assert.equal(c.lastDate, "2023-05-01T13:00:00.000Z");
});

test("recall@k counts evidence covered by the first k exchanges", () => {
  const ranked = [["D1:1", "D1:2"], ["D2:1"], ["D3:1", "D3:2"]];
  assert.equal(recallAt(["D1:2", "D3:1"], ranked, 2), 0.5);
  assert.equal(recallAt(["D1:2", "D3:1"], ranked, 3), 1);
  assert.equal(recallAt(["D9:9"], ranked, 3), 0);
  assert.throws(() => recallAt([], ranked, 3));
});

test("halves and summaries", () => {
  assert.equal(halfOf("conv-26"), "tuning");
  assert.equal(halfOf("conv-50"), "reporting");
  assert.equal(halfOf("conv-99"), null);
  const s = summarise([
    { half: "tuning", category: 1, values: { r: 1 } },
    { half: "tuning", category: 4, values: { r: 0 } },
    { half: "reporting", category: 4, values: { r: 0.5 } },
  ]);
  assert.equal(s.tuning!.all!.r, 0.5);
  assert.equal(s.tuning!["multi-hop"]!.r, 1);
  assert.equal(s.reporting!["single-hop"]!.n, 1);
});
