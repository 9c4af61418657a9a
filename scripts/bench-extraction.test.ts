import fs from "node:fs";
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { benchDirs, finite, runJson } from "../server/test/bench-smoke";

/**
 * The extraction bench's smoke run (split from scripts/bench.test.ts to run alone: it times replies and counts
 * what was learned in the quiet gaps between them, which a busy neighbour distorts — scripts/test-unit.ts SERIAL).
 */

after(() => benchDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test("npm run bench: the extraction cost — queue throughput, bytes per fact, the reply with learning on and off", async () => {
  const r = await runJson("scripts/bench.ts", [
    "--sizes",
    "0",
    "--no-embed-cost",
    "--extraction-exchanges",
    "9",
    "--extraction-turns",
    "5",
  ]);
  const x = r.extractionCost;
  assert.equal(x.queue.exchanges, 9);
  assert.equal(x.queue.done, 9, "every exchange learned from");
  assert.equal(x.queue.calls, 3, "9 exchanges in calls of 4, 4 and 1");
  finite(x.queue.exchangesPerSec, "queue.exchangesPerSec");
  finite(x.queue.providerCall.p50, "queue.providerCall.p50");
  assert.ok(x.store.facts >= 9, "facts were written");
  finite(x.store.bytesPerFact, "store.bytesPerFact");
  assert.ok(x.store.bytesPerFact >= x.store.vectorBytesPerFact, "a fact's bytes include its vector");
  finite(x.store.queueBytesPerExchange, "store.queueBytesPerExchange");
  for (const mode of ["on", "off"]) finite(x.reply[mode].p50, `reply.${mode}.p50`);
  finite(x.reply.ratios.p50OnOverOff, "reply.ratios.p50OnOverOff");
  assert.ok(x.reply.learnedBetweenTurns > 0, "learning ran between the learning-on turns");
});
