/**
 * The live loop's smoke (issue 56): the eval's loop (server/test/live-loop-run.ts, `npm run eval:live-loop`) on
 * a few of its scenarios, through the same path — runTurn, the stored exchange, its learning job against the
 * facts double, the real bundled embedder — so `npm test` checks in seconds that the loop still holds: nothing
 * replaced comes back, nothing stale is stated or answered as current, every change is learned, and the asks are
 * answered. The quality figures (the rates over 128 asks) are the eval's, not this file's.
 */
import { before, describe, test } from "node:test";
import { echoingReply, restatingReply } from "../test/assistant-doubles";
import { assertLoopFloor, assertLoopHolds, type LoopMetrics, type LoopPlan, measureLoop } from "../test/live-loop-run";
import { LOOP_SCENARIOS, UNRELATED_TURNS } from "../test/live-loop-scenarios";

const topics = ["home", "employer", "dog"];
const PLAN: LoopPlan = {
  scenarios: LOOP_SCENARIOS.filter((s) => topics.includes(s.topic)),
  unrelatedBefore: UNRELATED_TURNS.slice(0, 1),
  unrelatedAfter: UNRELATED_TURNS.slice(3, 4),
};

// The naive learner with the echoing assistant is the hardest case of the eval: every echoed old statement
// would teach its old fact again without the provenance guard. The restating run checks the careful learner.
const RUNS = [
  { run: "echoing, naive learner", reply: echoingReply, naive: true, floor: { before: 1, after: 1 } },
  { run: "restating, careful learner", reply: restatingReply, naive: false, floor: { before: 0.5, after: 0.5 } },
];

for (const r of RUNS)
  describe(`live loop smoke — ${r.run}`, () => {
    let m: LoopMetrics;
    before(async () => {
      m = await measureLoop(r.run, r.reply, r.naive, PLAN);
    });
    test("no replaced fact is current again, none stated as current, every change learned", () => assertLoopHolds(m));
    test("the asks are answered right, before and after the change", () => assertLoopFloor(m, r.floor));
  });
