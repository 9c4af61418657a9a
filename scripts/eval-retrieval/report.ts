/**
 * The Markdown report of `npm run eval:retrieval` (scripts/eval-retrieval.ts runs the evaluation): the
 * figures table per half and configuration, the bootstrap intervals, what each memory technique is worth,
 * and the named-speakers and no-person variants.
 */
import { USE_LITE } from "../../server/test/retrieval-eval/life-harness";
import type { bootstrapIntervals, Evaluation } from "../../server/test/retrieval-eval/life-metrics";
import { LIFE_TYPES } from "../../server/test/retrieval-eval/life";

/** The report `npm run eval:retrieval` prints: the figures of every configuration, intervals, techniques. */
export function markdown(
  model: string,
  memories: number,
  report: Record<string, Record<string, Evaluation>>,
  intervals: Record<string, ReturnType<typeof bootstrapIntervals>>,
  techniques: {
    label: string;
    halves: Record<string, { off: Evaluation; gainRecall10: { lo: number; hi: number } }>;
  }[],
  namedReport: Record<string, Record<string, Evaluation>>,
  noPersonReport: Record<string, Record<string, Evaluation>> = {},
): string {
  const lines = [
    `### Retrieval eval (${model === USE_LITE ? "USE-lite" : model}, ${memories} memories in one space; \`npm run eval:retrieval${model === USE_LITE ? "" : " -- --model …"}\`)`,
    "",
    "Answerable: recall@10 / recall@6 / MRR@10, packed recall@6 (at the minimum confidence), memories packed of 6 and how many of them are not the question's gold. Unanswerable: memories packed of 6. Per-type columns: recall@10; short replies: the single-hop questions answered by a short reply in the next exchange.",
    "",
    ...figuresTable(report),
  ];
  const iv = (x: { lo: number; hi: number }, d = 3) => `${x.lo.toFixed(d)}–${x.hi.toFixed(d)}`;
  lines.push(
    "",
    "95% bootstrap intervals of the shipped defaults (1,000 resamples of the topics; unanswerable turns one by one):",
    "",
    ...Object.entries(intervals).map(
      ([half, x]) =>
        `- ${half}: recall@10 ${iv(x.recall10)}, gain over the previous defaults ${iv(x.recall10MinusBaseline)}, unanswerable packed ${iv(x.unanswerablePacked, 2)}`,
    ),
  );
  if (techniques.length) {
    const shipped = report["shipped defaults"]!;
    const arrow = (off: number, on: number, d = 3) => `${off.toFixed(d)} → ${on.toFixed(d)}`;
    lines.push(
      "",
      "What each memory technique is worth: each switched off alone, the rest shipped (off → shipped; the gain's 95% interval is paired by topic, 1,000 resamples). Settings → Retrieval and Debug Search switch the same techniques.",
      "",
      "| technique | half | recall@10 | gain (95%) | recall@6 | packed r@6 | unanswerable packed |",
      "|---|---|---:|---:|---:|---:|---:|",
    );
    for (const t of techniques) {
      for (const half of ["reporting", "tuning"]) {
        const x = t.halves[half]!;
        const on = shipped[half]!;
        lines.push(
          `| ${t.label} | ${half} | ${arrow(x.off.answerable.recall10, on.answerable.recall10)} | ${x.gainRecall10.lo.toFixed(3)} to ${x.gainRecall10.hi.toFixed(3)} | ${arrow(x.off.answerable.recall6, on.answerable.recall6)} | ${arrow(x.off.answerable.packedRecall6, on.answerable.packedRecall6)} | ${arrow(x.off.unanswerable.packed, on.unanswerable.packed, 2)} |`,
        );
      }
    }
  }
  if (Object.keys(namedReport).length)
    lines.push(
      "",
      'The same history as an imported conversation between two named people (`named-speakers.ts`: every exchange "<persona>: … Robin: …", the questions about the persona by name, in the third person; general-knowledge turns as asked), the shape of the public long-conversation benchmarks:',
      "",
      ...figuresTable(namedReport),
    );
  if (Object.keys(noPersonReport).length)
    lines.push(
      "",
      'The questions whose only words for the person are "my"/"our", asked without them (`no-person.ts`: "Which breed is the four-legged buddy?", "When is Dad\'s knee replacement?"), beside the same questions as asked; same history and gold:',
      "",
      ...figuresTable(noPersonReport),
    );
  return `${lines.join("\n")}\n`;
}

/** The figures table: one row per half and configuration. */
function figuresTable(report: Record<string, Record<string, Evaluation>>): string[] {
  const f = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(3));
  const types = LIFE_TYPES.filter((t) => t !== "unanswerable");
  const lines = [
    `| half | configuration | recall@10 | recall@6 | MRR | packed r@6 | answerable packed (not gold) | unanswerable packed | ${types.join(" | ")} | short replies |`,
    `|---|---|---:|---:|---:|---:|---:|---:|${types.map(() => "---:").join("|")}|---:|`,
  ];
  for (const half of ["reporting", "tuning"]) {
    for (const [name, byHalf] of Object.entries(report)) {
      const e = byHalf[half]!;
      lines.push(
        `| ${half} | ${name} | ${f(e.answerable.recall10)} | ${f(e.answerable.recall6)} | ${f(e.answerable.mrr)} | ${f(e.answerable.packedRecall6)} | ${e.answerable.packed.toFixed(2)} (${e.answerable.packedOther.toFixed(2)}) | ${e.unanswerable.packed.toFixed(2)} | ${types.map((t) => f(e.perType[t]?.recall10)).join(" | ")} | ${f(e.shortReplies.n ? e.shortReplies.recall10 : undefined)} |`,
      );
    }
  }
  return lines;
}
