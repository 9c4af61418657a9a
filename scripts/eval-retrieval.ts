/**
 * Retrieval evaluation with a real embedding model behind a disk cache (default the bundled offline
 * USE-lite; `--model FILE.gguf` serves a GGUF through llama.cpp, e.g. nomic-embed-text-v1.5 once
 * downloaded): one person's year of chat, 1,100 memories in ONE space, every question searched against
 * all of it (server/test/retrieval-eval/life.ts and README.md there). Settings and the confidence model
 * are the model's own profile (settings.ts, confidence-models.ts).
 *
 *   npm run eval:retrieval [-- --model FILE.gguf] [--out FILE.json] [--markdown FILE.md] [--fit] [--cache DIR] [--quiet]
 *
 * 1. Tuning half: each technique's setting is chosen in turn (coordinate ascent from the previous
 *    defaults, two passes, answerable recall@10 then MRR), then the confidence model is fitted on the tuning half's
 *    results (--fit writes it into server/memory/retrieval/confidence-models.ts), then, under the shipped retrieval
 *    settings, the turn's share (`turnShare`, written by --fit too) and the minimum confidence together: for each share, the lowest
 *    threshold that keeps unanswerable turns at ≤ 1 packed memory of 6; the share whose threshold packs
 *    the most gold (packed recall@6) wins.
 * 2. Both halves are reported under the SHIPPED defaults (settings.ts, confidence-models.ts), beside
 *    the previous defaults (every new technique off, no threshold) and each leg alone, from this run.
 * JSON on stdout (and --out), then the Markdown tables; progress on stderr.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { confidenceModelFor, fitLogistic } from "../server/memory/retrieval/confidence";
import { FEATURES } from "../server/memory/retrieval/confidence-features";
import { defaultSettingsFor, type RetrievalSettings } from "../server/memory/retrieval/settings";
import { switchedOff, TECHNIQUES, techniqueOn } from "../server/memory/retrieval/techniques";
import { generateLife, LIFE_TYPES, type LifeQuestion } from "../server/test/retrieval-eval/life";
import { asNamedSpeakers } from "../server/test/retrieval-eval/named-speakers";
import { asNoPerson } from "../server/test/retrieval-eval/no-person";
import { DEFAULT_CACHE_DIR, openLifeStore, prepareQueries, USE_LITE } from "../server/test/retrieval-eval/life-harness";
import {
  bootstrapIntervals,
  calibrationRows,
  figures,
  runQuestions,
  type Evaluation,
  type PerQuestion,
} from "../server/test/retrieval-eval/life-metrics";
import { fittedBlockFor, modelChoice, writeFitted } from "./eval-retrieval/model";
import { quietThreshold } from "./eval-retrieval/quiet-threshold";
import { markdown } from "./eval-retrieval/report";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    markdown: { type: "string" },
    fit: { type: "boolean", default: false },
    model: { type: "string" },
    cache: { type: "string" },
    quiet: { type: "boolean", default: false },
  },
});
const log = (m: string) => {
  if (!values.quiet) process.stderr.write(`[eval] ${m}\n`);
};

type Patch = Partial<Omit<RetrievalSettings, "weights">> & { weights?: Partial<RetrievalSettings["weights"]> };
const apply = (s: RetrievalSettings, p: Patch): RetrievalSettings => ({
  ...s,
  ...p,
  weights: { ...s.weights, ...(p.weights ?? {}) },
});

/** The defaults before this evaluation: every technique off, no confidence threshold. */
const PREVIOUS: Patch = {
  denseMaxDocFraction: 1,
  neighbourWeight: 0,
  dateBoost: 0,
  minConfidence: 0,
};
/** The whole previous USE-lite profile (linear fusion, dense 0.5, 1 context message, quality filter 0.2). */
const PREVIOUS_FULL: Patch = {
  ...PREVIOUS,
  fusion: "linear",
  rrfK: 60,
  weights: { vector: 0.5, fts: 1, anchor: 0.5 },
  contextMessages: 1,
  anchorQuery: false,
  qualityFilter: true,
  minSimilarity: 0.2,
};
const LEG_VECTOR: Patch = { weights: { vector: 1, fts: 0 }, qualityFilter: false };
const LEG_KEYWORD: Patch = { weights: { vector: 0, fts: 1 }, qualityFilter: false };

/** Knobs tuned in this order, each over these values, the others held. */
const KNOBS: { name: string; values: Patch[] }[] = [
  {
    name: "fusion",
    values: [0.3, 0.4, 0.5, 0.7, 1]
      .map((v): Patch => ({ fusion: "linear", weights: { vector: v } }))
      .concat([{ fusion: "rrf", weights: { vector: 1 } }]),
  },
  { name: "contextMessages", values: [0, 1, 2].map((c) => ({ contextMessages: c })) },
  { name: "denseMaxDocFraction", values: [1, 0.3, 0.15, 0.08].map((v) => ({ denseMaxDocFraction: v })) },
  { name: "neighbourWeight", values: [0, 0.1, 0.2, 0.3, 0.5].map((v) => ({ neighbourWeight: v })) },
  { name: "minSimilarity", values: [0, 0.1, 0.2].map((v) => ({ qualityFilter: v > 0, minSimilarity: v })) },
];

type LifeStore = Awaited<ReturnType<typeof openLifeStore>>;
type Life = ReturnType<typeof generateLife>;
type EvalOn = (qs: LifeQuestion[], s: RetrievalSettings) => Promise<PerQuestion[]>;
type ConfidenceModel = ReturnType<typeof confidenceModelFor>;
type Halves = { tuning: LifeQuestion[]; reporting: LifeQuestion[] };
type Report = Record<string, Record<string, Evaluation>>;
type Technique = {
  key: string;
  label: string;
  halves: Record<string, { off: Evaluation; gainRecall10: { lo: number; hi: number } }>;
};

const score = (e: Evaluation) => e.answerable.recall10 + 0.1 * e.answerable.mrr;

/**
 * 1. Tuning half: coordinate ascent over the knobs, from the previous defaults (not from the shipped ones, so
 *    what this run chooses does not depend on what an earlier run shipped).
 */
async function tuneKnobs(store: LifeStore, tuning: LifeQuestion[], previous: RetrievalSettings, evalOn: EvalOn) {
  let chosen = previous;
  const tuningLog: { knob: string; value: string; recall10: number; mrr: number }[] = [];
  // Two passes: a knob chosen late (the personal boost) can change what suits an earlier one.
  // A knob only moves when the best value beats the current one by at least half a question's
  // recall (MIN_GAIN): smaller differences are one question's luck, and following them made the
  // choice flip between near-ties (RRF vs linear fusion by 0.003).
  const minGain = MIN_GAIN_QUESTIONS / tuning.filter((q) => q.gold.length > 0).length;
  for (const knob of [...KNOBS, ...KNOBS]) {
    let best: { s: RetrievalSettings; e: Evaluation } | null = null;
    let current: { s: RetrievalSettings; e: Evaluation } | null = null;
    for (const v of knob.values) {
      const s = apply(chosen, v);
      const e = figures(store, await evalOn(tuning, s), 0);
      tuningLog.push({
        knob: knob.name,
        value: JSON.stringify(v),
        recall10: e.answerable.recall10,
        mrr: e.answerable.mrr,
      });
      if (!best || score(e) > score(best.e) + 1e-9) best = { s, e };
      if (!current && JSON.stringify(s) === JSON.stringify(chosen)) current = { s, e };
    }
    if (current && score(best!.e) < score(current.e) + minGain) best = current;
    chosen = best!.s;
    log(
      `tuning: ${knob.name} → ${JSON.stringify(knob.values.find((v) => JSON.stringify(apply(chosen, v)) === JSON.stringify(chosen)))} (recall@10 ${best!.e.answerable.recall10}, MRR ${best!.e.answerable.mrr})`,
    );
  }
  return { chosen, tuningLog };
}

/** 2. Confidence model, fitted on the tuning half's results under the chosen settings. */
async function fitConfidence(store: LifeStore, ds: Life, tuning: LifeQuestion[], chosen: RetrievalSettings) {
  const rows = await calibrationRows(store, ds, tuning, chosen);
  const fitted = fitLogistic(rows);
  const fit = {
    bias: round(fitted.bias),
    weights: Object.fromEntries(FEATURES.map((f) => [f, round(fitted.weights[f])])),
    loss: round(fitted.loss),
    rows: rows.length,
    positives: rows.filter((r) => r.y).length,
  };
  log(
    `confidence fit on ${rows.length} results (${fit.positives} gold): ${JSON.stringify(fit.weights)} bias ${fit.bias}`,
  );
  return fit;
}

/**
 * 3. Minimum confidence, on tuning: the lowest that keeps unanswerable turns at ≤ 1 packed memory
 *    (the precision target: memories that do not matter stay out of the prompt), so that packed
 *    recall@6 stays as high as it can. Whether packed recall@6 then stays within 2 points of
 *    unfiltered is reported, not assumed (the two targets can conflict).
 *    The turn's share is chosen with it: each share gets its own lowest quiet threshold, and the
 *    share whose threshold keeps the most gold in the prompt (packed recall@6) wins (ties: the smaller).
 *    Both are chosen under the SHIPPED retrieval settings (still on tuning): a threshold is for what
 *    ships, and the shipped settings may differ from the ascent's choice by documented reasons
 *    (settings.ts), which move the confidences it cuts. Leaves `model.turnShare` at the last share tried.
 */
async function chooseTurnShare(
  store: LifeStore,
  tuning: LifeQuestion[],
  shipped: RetrievalSettings,
  model: ConfidenceModel,
  evalOn: EvalOn,
) {
  const turnSweep: { turnShare: number; minConfidence: number; packedRecall6: number; unanswerablePacked: number }[] =
    [];
  let best: { turnShare: number; rows: PerQuestion[]; threshold: ReturnType<typeof quietThreshold> } | null = null;
  for (const turnShare of TURN_SHARES) {
    model.turnShare = turnShare;
    const rowsAt = await evalOn(tuning, shipped);
    const threshold = quietThreshold(store, rowsAt);
    const e = figures(store, rowsAt, threshold.t);
    turnSweep.push({
      turnShare,
      minConfidence: threshold.t,
      packedRecall6: e.answerable.packedRecall6,
      unanswerablePacked: e.unanswerable.packed,
    });
    log(
      `tuning: turnShare ${turnShare}: minConfidence ${threshold.t}, packed recall@6 ${e.answerable.packedRecall6}, unanswerable ${e.unanswerable.packed}`,
    );
    const p6 = (b: typeof best) => figures(store, b!.rows, b!.threshold.t).answerable.packedRecall6;
    if (!best || e.answerable.packedRecall6 > p6(best) + 1e-9) best = { turnShare, rows: rowsAt, threshold };
  }
  return { turnSweep, turnShare: best!.turnShare, sweep: best!.threshold.sweep, minConfidence: best!.threshold.t };
}

/** 4. The configurations both halves are reported under: the shipped defaults, the previous ones, each leg, … */
function reportConfigs(
  shipped: RetrievalSettings,
  previous: RetrievalSettings,
  chosen: RetrievalSettings,
  turnShare: number,
  ownEvidenceMinConfidence: number,
): { name: string; s: RetrievalSettings; turnShare?: number; unmarked?: boolean }[] {
  return [
    { name: "shipped defaults", s: shipped },
    { name: "previous defaults", s: previous },
    { name: "vector leg (shipped settings)", s: apply(shipped, LEG_VECTOR) },
    { name: "keyword leg (shipped settings)", s: apply(shipped, LEG_KEYWORD) },
    { name: "chosen on tuning (this run)", s: chosen, turnShare },
    { name: "neighbour context off", s: apply(shipped, { neighbourWeight: 0 }) },
    // People often leave the "?" off: the same questions typed without it .
    { name: 'questions typed without "?"', s: shipped, unmarked: true },
    // What the turn's evidence changes: each result on its own evidence, at that share's own threshold.
    {
      name: "own evidence only (turnShare 0)",
      s: { ...shipped, minConfidence: ownEvidenceMinConfidence },
      turnShare: 0,
    },
  ];
}

/** 4. Both halves under each configuration (each with its turn share; `model.turnShare` is left at the last). */
async function reportHalves(
  store: LifeStore,
  halves: Halves,
  configs: ReturnType<typeof reportConfigs>,
  model: ConfidenceModel,
  evalOn: EvalOn,
) {
  const shippedShare = model.turnShare;
  const report: Report = {};
  const rowsOf: Record<string, Record<string, PerQuestion[]>> = {};
  for (const c of configs) {
    report[c.name] = {};
    rowsOf[c.name] = {};
    model.turnShare = c.turnShare ?? shippedShare;
    for (const [half, qs] of [
      ["tuning", halves.tuning],
      ["reporting", halves.reporting],
    ] as const) {
      const rows = await evalOn(c.unmarked ? qs.map(withoutQuestionMarks) : qs, c.s);
      rowsOf[c.name]![half] = rows;
      report[c.name]![half] = figures(store, rows, c.s.minConfidence);
    }
    log(
      `${c.name}: reporting recall@10 ${report[c.name]!.reporting!.answerable.recall10}, unanswerable packed ${report[c.name]!.reporting!.unanswerable.packed}`,
    );
  }
  return { report, rowsOf, shippedShare };
}

/**
 * 4b. What each memory technique is worth: switched off alone (the rest shipped), both halves, with the
 * 95% interval of the shipped defaults' recall@10 gain over it (paired, by topic).
 */
async function techniqueWorth(
  store: LifeStore,
  halves: Halves,
  shipped: RetrievalSettings,
  shippedRows: Record<string, PerQuestion[]>,
  evalOn: EvalOn,
): Promise<Technique[]> {
  const techniques: Technique[] = [];
  for (const t of TECHNIQUES.filter((x) => techniqueOn(x, shipped))) {
    const s = switchedOff(shipped, t);
    const byHalf: Technique["halves"] = {};
    for (const [half, qs] of [
      ["tuning", halves.tuning],
      ["reporting", halves.reporting],
    ] as const) {
      const rows = await evalOn(qs, s);
      byHalf[half] = {
        off: figures(store, rows, s.minConfidence),
        gainRecall10: bootstrapIntervals(store, shippedRows[half]!, shipped.minConfidence, {
          rows,
          minConfidence: s.minConfidence,
        }).recall10MinusBaseline,
      };
    }
    techniques.push({ key: t.key, label: t.label, halves: byHalf });
    log(`${t.label} off: reporting recall@10 ${byHalf.reporting!.off.answerable.recall10}`);
  }
  return techniques;
}

/**
 * 4c. The same history as an imported conversation between two named people, asked about the persona
 *     by name (named-speakers.ts): the shape of the public long-conversation benchmarks.
 */
async function namedSpeakersReport(ds: Life, shipped: RetrievalSettings, choice: ReturnType<typeof modelChoice>) {
  const named = asNamedSpeakers(ds);
  const namedStore = await openLifeStore(named, { log, cacheDir: values.cache ?? DEFAULT_CACHE_DIR, choice });
  const namedReport: Report = {};
  try {
    const namedConfigs: { name: string; s: RetrievalSettings }[] = [
      { name: "shipped defaults", s: shipped },
      { name: "vector leg (shipped settings)", s: apply(shipped, LEG_VECTOR) },
      { name: "keyword leg (shipped settings)", s: apply(shipped, LEG_KEYWORD) },
      { name: "dense-query cleaning off", s: apply(shipped, { denseMaxDocFraction: 1 }) },
    ];
    for (const c of namedConfigs) {
      namedReport[c.name] = {};
      for (const half of ["tuning", "reporting"] as const) {
        const qs = named.questions.filter((q) => q.half === half);
        await prepareQueries(namedStore, named, qs, [c.s]);
        namedReport[c.name]![half] = figures(
          namedStore,
          await runQuestions(namedStore, named, qs, c.s),
          c.s.minConfidence,
        );
      }
      log(`named speakers, ${c.name}: reporting recall@10 ${namedReport[c.name]!.reporting!.answerable.recall10}`);
    }
  } finally {
    await namedStore.close();
  }
  return namedReport;
}

/**
 * 4d. The questions that speak of the person only through "my"/"our", asked without them ("Which
 *     breed is the four-legged buddy?", no-person.ts), beside the same questions as asked: what a turn
 *     gets when nothing in it says it is about the person.
 */
async function noPersonReport(store: LifeStore, ds: Life, shipped: RetrievalSettings) {
  const noPerson = asNoPerson(ds);
  const asAsked = new Set(noPerson.questions.map((q) => q.id.replace(/-np$/, "")));
  const report: Report = { "as asked": {}, "without the person": {} };
  for (const half of ["tuning", "reporting"] as const) {
    for (const [name, d] of [
      ["as asked", { ...ds, questions: ds.questions.filter((q) => asAsked.has(q.id)) }],
      ["without the person", noPerson],
    ] as const) {
      const qs = d.questions.filter((q) => q.half === half);
      await prepareQueries(store, d, qs, [shipped]);
      report[name]![half] = figures(store, await runQuestions(store, d, qs, shipped), shipped.minConfidence);
    }
  }
  log(
    `without the person: reporting packed recall@6 ${report["without the person"]!.reporting!.answerable.packedRecall6}`,
  );
  return { report, questions: countTypes(noPerson.questions) };
}

/** The techniques' figures as the JSON summary lists them. */
function techniqueSummary(techniques: Technique[]) {
  return techniques.map((t) => ({
    key: t.key,
    label: t.label,
    ...Object.fromEntries(
      Object.entries(t.halves).map(([half, x]) => [
        half,
        {
          recall10: x.off.answerable.recall10,
          recall6: x.off.answerable.recall6,
          packedRecall6: x.off.answerable.packedRecall6,
          unanswerablePacked: x.off.unanswerable.packed,
          shippedGainRecall10: x.gainRecall10,
        },
      ]),
    ),
  }));
}

/** The minimum-confidence sweep as the JSON summary lists it. */
function sweepSummary(sweep: ReturnType<typeof quietThreshold>["sweep"]) {
  return sweep.map((x) => ({
    minConfidence: x.t,
    packedRecall6: x.e.answerable.packedRecall6,
    recall6: x.e.answerable.recall6,
    answerablePacked: x.e.answerable.packed,
    answerablePackedOther: x.e.answerable.packedOther,
    unanswerablePacked: x.e.unanswerable.packed,
  }));
}

async function main() {
  const tAll = Date.now();
  const ds = generateLife();
  const tuning = ds.questions.filter((q) => q.half === "tuning");
  const reporting = ds.questions.filter((q) => q.half === "reporting");
  log(
    `history: ${ds.memories.length} memories in one space, ${ds.memories[0]!.timestamp.slice(0, 10)} … ${ds.memories.at(-1)!.timestamp.slice(0, 10)}; questions: ${tuning.length} tuning, ${reporting.length} reporting`,
  );
  const choice = modelChoice(values.model);
  const fittedBlock = values.fit ? fittedBlockFor(choice) : null;
  const store = await openLifeStore(ds, { log, cacheDir: values.cache ?? DEFAULT_CACHE_DIR, choice });
  try {
    const modelId = store.model;
    log(
      `store ready in ${store.ingestMs} ms (${store.embedder.misses} passages embedded by ${modelId}, the rest cached)`,
    );
    const shipped = defaultSettingsFor(modelId);
    const evalOn: EvalOn = async (qs, s) => {
      await prepareQueries(store, ds, qs, [s]);
      return runQuestions(store, ds, qs, s);
    };

    const previous = apply(shipped, modelId === USE_LITE ? PREVIOUS_FULL : PREVIOUS);
    const tuned = await tuneKnobs(store, tuning, previous, evalOn);
    let chosen = tuned.chosen;
    const fit = await fitConfidence(store, ds, tuning, chosen);
    const model = confidenceModelFor(modelId);
    const shippedTurnShare = model.turnShare;
    if (values.fit) {
      // Use the new fit in this run too (the module object is what retrieval reads).
      model.bias = fit.bias;
      Object.assign(model.weights, fit.weights);
    }
    const { turnSweep, turnShare, sweep, minConfidence } = await chooseTurnShare(store, tuning, shipped, model, evalOn);
    chosen = { ...chosen, minConfidence };
    log(`tuning: turnShare → ${turnShare}, minConfidence → ${minConfidence}`);
    if (values.fit) {
      writeFitted(
        fittedBlock!,
        fit.bias,
        fit.weights as Record<(typeof FEATURES)[number], number>,
        model.similarityRange,
        turnShare,
      );
      log("wrote the fitted coefficients and turnShare into server/memory/retrieval/confidence-models.ts");
    }
    // The shipped model from here on (with --fit, the one just written), except for "chosen on tuning".
    model.turnShare = values.fit ? turnShare : shippedTurnShare;

    const halves = { tuning, reporting };
    const configs = reportConfigs(shipped, previous, chosen, turnShare, turnSweep[0]!.minConfidence);
    const { report, rowsOf, shippedShare } = await reportHalves(store, halves, configs, model, evalOn);
    const techniques = await techniqueWorth(store, halves, shipped, rowsOf["shipped defaults"]!, evalOn);
    const namedReport = await namedSpeakersReport(ds, shipped, choice);
    const noPerson = await noPersonReport(store, ds, shipped);
    // 5. How much of it is noise: bootstrap intervals of the shipped defaults, and of their gain over the previous ones.
    const intervals = Object.fromEntries(
      (["reporting", "tuning"] as const).map((half) => [
        half,
        bootstrapIntervals(store, rowsOf["shipped defaults"]![half]!, shipped.minConfidence, {
          rows: rowsOf["previous defaults"]![half]!,
          minConfidence: previous.minConfidence,
        }),
      ]),
    );
    model.turnShare = shippedShare;
    const differs: string[] = (Object.keys(chosen) as (keyof RetrievalSettings)[]).filter(
      (k) => JSON.stringify(chosen[k]) !== JSON.stringify(shipped[k]),
    );
    if (turnShare !== shippedShare) differs.push("turnShare (confidence-models.ts)");
    const summary = {
      model: modelId,
      command: "npm run eval:retrieval",
      dataset: {
        memories: ds.memories.length,
        space: ds.space,
        from: ds.memories[0]!.timestamp,
        to: ds.memories.at(-1)!.timestamp,
        questions: { tuning: countTypes(tuning), reporting: countTypes(reporting) },
      },
      shippedDiffersFromChosen: differs,
      chosen,
      confidenceFit: fit,
      turnShare: { chosen: turnShare, shipped: shippedShare, sweep: turnSweep },
      minConfidenceSweep: sweepSummary(sweep),
      tuningLog: tuned.tuningLog,
      report,
      intervals,
      namedSpeakers: { persona: ds.persona, report: namedReport },
      noPerson: { questions: noPerson.questions, report: noPerson.report },
      techniques: techniqueSummary(techniques),
      timings: {
        ingestMs: store.ingestMs,
        passagesEmbedded: store.embedder.misses,
        embedMs: store.embedder.embedMs,
        totalMs: Date.now() - tAll,
      },
    };
    const json = JSON.stringify(summary, null, 2);
    if (values.out) fs.writeFileSync(values.out, `${json}\n`);
    process.stdout.write(`${json}\n\n`);
    const md = markdown(modelId, summary.dataset.memories, report, intervals, techniques, namedReport, noPerson.report);
    if (values.markdown) fs.writeFileSync(values.markdown, md);
    process.stdout.write(md);
    if (differs.length) log(`note: the shipped defaults differ from this run's choice in: ${differs.join(", ")}`);
    log(`done in ${((Date.now() - tAll) / 1000).toFixed(1)} s`);
  } finally {
    await store.close();
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const unmark = (t: string) => t.replace(/\s*[?？]+/gu, "");
const withoutQuestionMarks = (q: LifeQuestion): LifeQuestion => ({
  ...q,
  text: unmark(q.text),
  context: q.context.map(unmark),
});

function countTypes(qs: LifeQuestion[]) {
  return Object.fromEntries(LIFE_TYPES.map((t) => [t, qs.filter((q) => q.type === t).length]));
}

/** Confidence shares of the way to the turn's strongest result tried on tuning (confidence.ts `withTurnEvidence`). */
const TURN_SHARES = [0, 0.2, 0.33, 0.5, 0.67];
/** How much better (in answerable questions' worth of recall@10 + 0.1 × MRR) a knob's value must score to move it. */
const MIN_GAIN_QUESTIONS = 0.5;

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
