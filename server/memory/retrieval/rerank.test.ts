import assert from "node:assert/strict";
import { test } from "node:test";
import { packMemories, speakerBody, trimAssistant } from "./pack";
import { packable } from "./retrieve";
import { memoryDate } from "./rerank";

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

test("packing keeps who said what and cuts a long reply at a sentence end, under the budget", () => {
  const content =
    "User: Bought a Corolla hybrid today.\nAssistant: Congratulations on the new car! Hybrids save a lot of fuel in town. Would you like me to put together a checklist? Let me know if you want more.";
  assert.equal(
    speakerBody(content, 400),
    "the user said: “Bought a Corolla hybrid today.”\n  you replied: “Congratulations on the new car! Hybrids save a lot of fuel in town. Would you like me to put together a checklist? Let me know if you want more.”",
  );
  assert.equal(trimAssistant("First fact here. Second fact that is long enough to go over.", 20), "First fact here.");
  const { block, used } = packMemories(
    [{ content, timestamp: "2024-05-02T10:00:00.000Z", matchType: "hybrid", importance: 1 }],
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
    speakerBody(content, 60),
    "the user said: “Bought a Corolla hybrid today.”\n  you replied: “Congratulations on the new car!”",
  );
  // As stored (the chunker puts an exchange on one line) it reads the same.
  assert.equal(speakerBody(content.replace("\n", " "), 400), speakerBody(content, 400));
  // Non-chat content (a document chunk, /remember) is packed as it is.
  assert.equal(speakerBody("Sister Anna lives in Berlin", 400), "Sister Anna lives in Berlin");
});
