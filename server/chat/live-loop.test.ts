/**
 * The live loop (issue 47), careful learner: the facts double reads what the person said. The loop, the
 * doubles and the metrics are in server/test/live-loop-run.ts; the naive learner's runs are
 * live-loop-naive.test.ts (a file of its own, so the two run side by side).
 */
import { echoingReply, restatingReply } from "../test/assistant-doubles";
import { describeLoop } from "../test/live-loop-run";

// Floors: the rates measured when the recall side landed (28 / 14 % and 42–44 / 27–28 %), less four of the 64 asks
// of a phase (the echo runs move by two or three asks between runs: when learning ends against the next
// turn is not fixed).
describeLoop("restating, careful learner", restatingReply, false, { before: 0.22, after: 0.09 });
describeLoop("echoing, careful learner", echoingReply, false, { before: 0.36, after: 0.22 });
