/**
 * The live loop (issue 47), naive learner: the facts double learns from the whole exchange, the assistant's
 * words too, so an echoed old statement would teach its old fact again unless Memo stops it (the provenance
 * guard, server/memory/facts/provenance-guard.ts). The loop is in server/test/live-loop-run.ts.
 */
import { echoingReply, restatingReply } from "../test/assistant-doubles";
import { describeLoop } from "../test/live-loop-run";

// Floors: the rates measured when the recall side landed (28 / 14 % and 42–45 / 28 %), less four of the 64 asks
// of a phase (the echo runs move by two or three asks between runs: when learning ends against the next
// turn is not fixed).
describeLoop("restating, naive learner", restatingReply, true, { before: 0.22, after: 0.09 });
describeLoop("echoing, naive learner", echoingReply, true, { before: 0.36, after: 0.22 });
