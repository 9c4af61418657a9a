/**
 * The live loop (issue 47), careful learner: the facts double reads what the person said — the full run, an eval
 * (`npm run eval:live-loop`, docs/testing.md#evals-quality-measured-when-its-subject-changes), 32 scenarios and 128 asks a run. The loop, the doubles and the
 * metrics are in server/test/live-loop-run.ts; the naive learner's runs are live-loop-naive.eval.ts (a file of its
 * own, so the two run side by side); `npm test` runs a few scenarios of each through the same path
 * (live-loop-smoke.test.ts).
 */
import { echoingReply, restatingReply } from "../test/assistant-doubles";
import { loopEvalSuites } from "../test/live-loop-run";

// Floors: the rates measured with the profile at 500 tokens and its lines stated by their strength for the
// question (56 / 38 % restating, 97 / 97 % echoing), less four of the 64 asks of a phase (the echo runs move by
// two or three asks between runs: when learning ends against the next turn is not fixed).
const RUNS = [
  { run: "restating, careful learner", reply: restatingReply, naive: false, floor: { before: 0.5, after: 0.32 } },
  { run: "echoing, careful learner", reply: echoingReply, naive: false, floor: { before: 0.91, after: 0.91 } },
];

loopEvalSuites(RUNS);
