/**
 * The live loop (issue 47), naive learner: the facts double learns from the whole exchange, the assistant's
 * words too, so an echoed old statement would teach its old fact again unless Memo stops it (the provenance
 * guard, server/memory/facts/provenance-guard.ts). The full run, an eval (`npm run eval:live-loop`); the loop is in
 * server/test/live-loop-run.ts, and `npm test`'s smoke of it in live-loop-smoke.test.ts.
 */
import { echoingReply, restatingReply } from "../test/assistant-doubles";
import { loopEvalSuites } from "../test/live-loop-run";

// Floors: the rates measured with the profile at 500 tokens and its lines stated by their strength for the
// question (56 / 38 % restating, 97 / 97 % echoing), less four of the 64 asks of a phase (the echo runs move by
// two or three asks between runs: when learning ends against the next turn is not fixed).
const RUNS = [
  { run: "restating, naive learner", reply: restatingReply, naive: true, floor: { before: 0.5, after: 0.32 } },
  { run: "echoing, naive learner", reply: echoingReply, naive: true, floor: { before: 0.91, after: 0.91 } },
];

loopEvalSuites(RUNS);
