/**
 * The evals `npm run eval:<suite>` runs (scripts/eval.ts): each suite's `*.eval.ts` files, which `npm test` never
 * runs (their smokes are `*.test.ts` files beside them). docs/testing.md#evals-quality-measured-when-its-subject-changes says when each must be run.
 */
export const EVAL_SUITES: Record<string, { files: string[]; about: string }> = {
  "live-loop": {
    files: ["server/chat/live-loop.eval.ts", "server/chat/live-loop-naive.eval.ts"],
    about: "the live loop's four runs (restating / echoing assistant × careful / naive learner), 128 asks each",
  },
  "retrieval-slice": {
    files: ["server/memory/retrieval/retrieval-slice.eval.ts"],
    about: "hybrid vs each leg, unanswerable packing and one ranking on the reporting half (250 fillers)",
  },
};
