/**
 * Import files are read and planned in the worker thread: the plan is the one the planner makes on this
 * thread, as the person who sent the file; bad bytes are a 400; past the time or memory cap a 413 naming
 * the setting, and the next file is planned by a fresh worker; meanwhile this thread keeps running.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { runAs } from "../core/acting";
import { ServiceError } from "../core/errors";
import { planOffThread } from "./import-plan-thread";
import { planImport } from "../services/import/registry";

const FIXTURE = path.join(import.meta.dirname, "../test/fixtures/claude-conversations.json");
const bytes = (s: string) => new TextEncoder().encode(s);
const refused = (status: number, msg: RegExp) => (e: unknown) =>
  e instanceof ServiceError && e.status === status && msg.test(e.message);

/** A Claude export of n small conversations (about 500 bytes each). */
function bigExport(n: number): string {
  const conv = (i: number) => ({
    uuid: `u-${i}`,
    name: `conversation ${i}`,
    created_at: "2024-01-01T00:00:00Z",
    chat_messages: [
      { sender: "human", text: `question number ${i} about the garden`, created_at: "2024-01-01T00:00:00Z" },
      { sender: "assistant", text: `answer number ${i}: water it in the morning`, created_at: "2024-01-01T00:00:01Z" },
    ],
  });
  return JSON.stringify(Array.from({ length: n }, (_, i) => conv(i)));
}

test("the worker's plan is the planner's, made as the person who sent the file", async () => {
  const text = fs.readFileSync(FIXTURE, "utf8");
  const bob = { personId: "bob", admin: false };
  const off = await runAs(bob, () => planOffThread("claude", bytes(text), "garden"));
  const here = runAs(bob, () => planImport("claude", JSON.parse(text), "garden"));
  assert.deepEqual(off, here);
  assert.equal(off.groups[0]![0]!.spaceId, "bob~garden", "the person's own space key");
  const memo = await planOffThread("memo", bytes('{"format":"memo-export","version":1,"memories":[]}'), undefined);
  assert.equal(memo.detail, "0 memories for 0 spaces");
});

test("bad bytes and bad files are a 400 with the reason", async () => {
  await assert.rejects(planOffThread("claude", bytes("[{"), undefined), refused(400, /not valid JSON/));
  await assert.rejects(planOffThread("claude", new Uint8Array([0x5b, 0xe9, 0x5d]), undefined), refused(400, /UTF-8/));
  await assert.rejects(planOffThread("chatgpt", bytes('["a\\u0000b"]'), undefined), refused(400, /NUL/));
  await assert.rejects(planOffThread("claude", bytes('{"a":1}'), undefined), refused(400, /JSON array/));
});

test("past the time cap: a 413 naming the setting; the next file is planned; this thread was never held", async () => {
  const big = bytes(bigExport(40_000)); // ~12 MB
  let ticks = 0;
  let maxGap = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    ticks++;
  }, 10);
  try {
    await assert.rejects(
      planOffThread("claude", big.slice(), undefined, { timeBudgetMs: 50 }),
      refused(413, /longer than 0\.1 s \(MEMO_IMPORT_PARSE_SECONDS\)/),
    );
    const plan = await planOffThread("claude", big, undefined);
    assert.equal(plan.groups.length, 40_000);
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 5, `the event loop ran meanwhile (${ticks} ticks)`);
  // Loose: a shared machine; on this thread JSON.parse and the plan of 12 MB held it 1.3–6.6 s.
  assert.ok(maxGap < 1000, `longest pause of this thread ${Math.round(maxGap)} ms`);
});

test("past the memory cap: a 413 naming the setting", async () => {
  await assert.rejects(
    planOffThread("claude", bytes(bigExport(100_000)), undefined, { memoryMb: 64 }),
    refused(413, /more than 64 MB of memory \(MEMO_IMPORT_PARSE_MEMORY_MB\)/),
  );
});
