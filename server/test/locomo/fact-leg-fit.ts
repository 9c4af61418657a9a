/**
 * The facts leg's confidence, fitted on LoCoMo's tuning half (`npm run eval:locomo -- --facts --fit-facts`,
 * LoCoMo's observations as the facts): every current fact a question's search scores (its features from
 * fact-leg.ts) is a positive when one of its source exchanges holds evidence of the question; the facts of
 * questions asked in another conversation's space and of the everyday prompts are negatives. The threshold is
 * the lowest at which those two get at most 0.15 and 0.3 facts a prompt on tuning (issue 42's targets for
 * memories), and the bias is moved so that the shipped factMinConfidence 0.5 means it. The same model and
 * threshold are read on the reporting half. Prints the model to paste into fact-leg.ts.
 */
import { confidenceOf, fitLogistic } from "../../memory/retrieval/confidence";
import type { Features } from "../../memory/retrieval/confidence-features";
import { FACT_LEG_MODEL, MAX_LEG_FACTS } from "../../memory/retrieval/fact-leg";
import { EVERYDAY_PROMPTS } from "./everyday-prompts";
import { ask, spaceOf, useSettings, type LocomoStore } from "./harness";
import { round, type Conversation, type Half, type Question } from "./locomo";

type Scored = { f: Features; y: 0 | 1 }[];

/** Per prompt, the facts the leg scores with their labels (the 30 strongest by the current model, to bound the fit). */
async function scoredFacts(
  store: LocomoStore,
  into: Conversation,
  prompts: Question[],
  own: boolean,
): Promise<Scored[]> {
  const turnsOfFact = new Map<string, string[]>();
  for (const r of store.db
    .prepare(
      "SELECT s.fact_id AS f, s.memory_id AS m FROM fact_sources s JOIN facts x ON x.id = s.fact_id WHERE x.space_id = ?",
    )
    .all(spaceOf(into)) as { f: string; m: string }[])
    turnsOfFact.set(r.f, [...(turnsOfFact.get(r.f) ?? []), ...(store.turnsOf.get(r.m) ?? [])]);
  const out: Scored[] = [];
  for (const q of prompts) {
    const r = await ask(store, spaceOf(into), q, into.lastDate);
    out.push(
      r.factLeg.slice(0, 30).map((f) => ({
        f: f.features!,
        y: own && (turnsOfFact.get(f.id) ?? []).some((t) => q.evidence.includes(t)) ? 1 : 0,
      })),
    );
  }
  return out;
}

interface HalfPrompts {
  own: Scored[];
  foreign: Scored[];
  everyday: Scored[];
}

async function halfPrompts(store: LocomoStore, convs: Conversation[], half: Half): Promise<HalfPrompts> {
  const inHalf = convs.filter((c) => c.half === half);
  const out: HalfPrompts = { own: [], foreign: [], everyday: [] };
  const everyday = EVERYDAY_PROMPTS.map((p) => ({ question: p, category: 0, evidence: [] }));
  for (let i = 0; i < inHalf.length; i++) {
    const c = inHalf[i]!;
    const next = inHalf[(i + 1) % inHalf.length]!;
    out.own.push(...(await scoredFacts(store, c, c.questions, true)));
    out.foreign.push(...(await scoredFacts(store, next, c.questions, false)));
    out.everyday.push(...(await scoredFacts(store, c, everyday, false)));
  }
  return out;
}

/** At threshold t: questions whose leg holds a fact from their evidence, the leg's precision, facts where none is wanted. */
function legAt(p: HalfPrompts, conf: (f: Features) => number, t: number) {
  const leg = (s: Scored) =>
    s
      .map((x) => ({ ...x, c: conf(x.f) }))
      .filter((x) => x.c >= t)
      .sort((a, b) => b.c - a.c)
      .slice(0, MAX_LEG_FACTS);
  const legs = p.own.map(leg);
  const given = legs.reduce((n, l) => n + l.length, 0);
  const right = legs.reduce((n, l) => n + l.filter((x) => x.y).length, 0);
  const mean = (xs: Scored[]) => round(xs.reduce((n, s) => n + leg(s).length, 0) / Math.max(1, xs.length));
  return {
    t: round(t),
    answered: round(legs.filter((l) => l.some((x) => x.y)).length / Math.max(1, legs.length)),
    factsPerQuestion: round(given / Math.max(1, legs.length)),
    precision: round(right / Math.max(1, given)),
    foreign: mean(p.foreign),
    everyday: mean(p.everyday),
  };
}

export async function fitFactLeg(store: LocomoStore, convs: Conversation[], log: (m: string) => void) {
  // Every fact the leg scores, whatever its confidence: the fit needs the negatives too.
  useSettings(store, { factMinConfidence: 0 });
  const tuning = await halfPrompts(store, convs, "tuning");
  log("fact leg: tuning scored");
  const rows = [...tuning.own, ...tuning.foreign, ...tuning.everyday].flat();
  const fit = fitLogistic(rows);
  const model = { ...FACT_LEG_MODEL, bias: fit.bias, weights: fit.weights };
  const conf = (f: Features) => confidenceOf(f, model);
  const sweep: ReturnType<typeof legAt>[] = [];
  for (let t = 0.05; t < 1; t += 0.01) sweep.push(legAt(tuning, conf, t));
  const chosen = sweep.find((x) => x.foreign <= 0.15 && x.everyday <= 0.3) ?? sweep.at(-1)!;
  const shiftedBias = fit.bias - Math.log(chosen.t / (1 - chosen.t));
  const reporting = legAt(await halfPrompts(store, convs, "reporting"), conf, chosen.t);
  useSettings(store);
  return {
    rows: rows.length,
    positives: rows.filter((r) => r.y).length,
    bias: round(fit.bias),
    shiftedBias: round(shiftedBias),
    weights: Object.fromEntries(Object.entries(fit.weights).map(([k, v]) => [k, round(v)])),
    chosen: { tuning: chosen, reporting },
    sweep: sweep.filter((_, i) => i % 5 === 0),
  };
}
