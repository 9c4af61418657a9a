import assert from "node:assert/strict";
import { test } from "node:test";
import { packMemories, speakerBody, trimAssistant } from "./memory-block";
import { chunkSaid } from "../store/chunker";
import { packable } from "./retrieve";
import { recencyOf as memoryDate } from "./recency";

test("the date a memory is true as of: its edit date when later than its timestamp", () => {
  assert.equal(memoryDate({ timestamp: "2024-01-01T00:00:00.000Z" }), "2024-01-01T00:00:00.000Z");
  assert.equal(
    memoryDate({ timestamp: "2024-01-01T00:00:00.000Z", updatedAt: "2024-05-01T00:00:00.000Z" }),
    "2024-05-01T00:00:00.000Z",
  );
  assert.equal(
    memoryDate({ timestamp: "2024-06-01T00:00:00.000Z", updatedAt: "2024-05-01T00:00:00.000Z" }),
    "2024-06-01T00:00:00.000Z",
  );
});

test("the threshold: only results at or above the minimum confidence are packable; 0 keeps all", () => {
  const rs = [0.9, 0.31, 0.3, 0.05].map((confidence, i) => ({ id: String(i), scores: { confidence } }));
  assert.deepEqual(
    packable(rs, 0.3).map((r) => r.id),
    ["0", "1", "2"],
  );
  assert.deepEqual(packable(rs, 0.95), []);
  assert.equal(packable(rs, 0).length, 4);
});

test("packing keeps who said what (the stored spans) and cuts a long reply at a sentence end, under the budget", () => {
  const { content, speakers } = chunkSaid([
    { role: "user", text: "Bought a Corolla hybrid today." },
    {
      role: "assistant",
      text: "Congratulations on the new car! Hybrids save a lot of fuel in town. Would you like me to put together a checklist? Let me know if you want more.",
    },
  ])[0]!;
  assert.equal(
    speakerBody(content, speakers, 400),
    "the user said: “Bought a Corolla hybrid today.”\n  you replied: “Congratulations on the new car! Hybrids save a lot of fuel in town. Would you like me to put together a checklist? Let me know if you want more.”",
  );
  assert.equal(trimAssistant("First fact here. Second fact that is long enough to go over.", 20), "First fact here.");
  const { block, used } = packMemories(
    [{ content, speakers, timestamp: "2024-05-02T10:00:00.000Z", matchType: "hybrid", importance: 1 }],
    6,
    1500,
    { speakers: true, assistantMaxChars: 400 },
  );
  assert.equal(used, 1);
  assert.match(
    block,
    /- 2024-05-02: the user said: “Bought a Corolla hybrid today\.”\n {2}you replied: “Congratulations/,
  );
  assert.equal(
    speakerBody(content, speakers, 60),
    "the user said: “Bought a Corolla hybrid today.”\n  you replied: “Congratulations on the new car!”",
  );
  // Who said what is read from the spans, never from labels in the text: without spans it is packed as it is.
  assert.equal(speakerBody(content, null, 400), content);
  assert.equal(speakerBody("Sister Anna lives in Berlin", null, 400), "Sister Anna lives in Berlin");
  // An imported speaker is named by the name stored with the span.
  const [named] = chunkSaid([
    { name: "Caroline", text: "I went to a support group." },
    { name: "Melanie", text: "How was it?" },
  ]);
  assert.equal(
    speakerBody(named!.content, named!.speakers, 400),
    "Caroline said: “I went to a support group.”\n  Melanie said: “How was it?”",
  );
});
