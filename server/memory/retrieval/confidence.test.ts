import assert from "node:assert/strict";
import { test } from "node:test";
import {
  confidenceModelFor,
  confidenceOf,
  features,
  fitLogistic,
  TURN_LEADERS,
  withTurnEvidence,
  type RawSignals,
} from "./confidence";
import { FEATURES, type Features } from "./confidence-features";
import { createRng } from "../../test/retrieval-eval/rng";
import { backgroundFrom } from "./background";

const base: RawSignals = {
  similarity: 0.3,
  keywordShare: 0.2,
  agreement: 0.3,
  termShare: 0.3,
  rareMatch: 0.4,
  dateMatch: false,
  gap: 0.1,
  standout: 1,
  known: 1,
  factKeywordShare: 0,
  factSimilarity: null,
};

test("confidence lies in [0, 1] and never falls when a signal rises (every model)", () => {
  const r = createRng("monotone");
  for (const name of ["universal-sentence-encoder-lite", "nomic-embed-text-v1.5"]) {
    const model = confidenceModelFor(name);
    for (const k of FEATURES) assert.ok(model.weights[k] >= 0, `${name}: weight of ${k} is ≥ 0`);
    for (let i = 0; i < 300; i++) {
      const s: RawSignals = {
        similarity: r.next() * 1.2 - 0.1,
        keywordShare: r.next(),
        agreement: r.next(),
        termShare: r.next(),
        rareMatch: r.next(),
        dateMatch: r.chance(0.3),
        gap: r.next(),
        standout: r.next() * 10 - 2,
        known: r.next(),
        factKeywordShare: r.next(),
        factSimilarity: r.chance(0.3) ? null : r.next(),
      };
      const bg = r.chance(0.5) ? { mean: 0.2, sd: 0.1, pairs: 100 } : null;
      const c = confidenceOf(features(s, model, bg), model);
      assert.ok(c >= 0 && c <= 1);
      const up: RawSignals[] = [
        { ...s, similarity: (s.similarity ?? 0) + 0.1 },
        { ...s, keywordShare: s.keywordShare + 0.1 },
        { ...s, agreement: s.agreement + 0.1 },
        { ...s, termShare: s.termShare + 0.1 },
        { ...s, rareMatch: s.rareMatch + 0.1 },
        { ...s, dateMatch: true },
        { ...s, gap: s.gap + 0.1 },
        { ...s, standout: (s.standout ?? 0) + 0.5 },
        { ...s, known: s.known + 0.1 },
        { ...s, factKeywordShare: s.factKeywordShare + 0.1 },
        { ...s, factSimilarity: (s.factSimilarity ?? 0) + 0.1 },
      ];
      for (const u of up)
        assert.ok(
          confidenceOf(features(u, model, bg), model) >= c - 1e-12,
          `${name}: ${JSON.stringify(u)} ≥ ${JSON.stringify(s)}`,
        );
    }
  }
});

test("calibration against the background: two models with different similarity ranges give the same confidence for the same relative evidence", () => {
  // Model A: unrelated texts at 0.1 ± 0.08; model B: at 0.45 ± 0.04 (a nomic-like, compressed range).
  const use = confidenceModelFor("universal-sentence-encoder-lite");
  const nomic = confidenceModelFor("nomic-embed-text-v1.5");
  const bgA = { mean: 0.1, sd: 0.08, pairs: 19_900 };
  const bgB = { mean: 0.45, sd: 0.04, pairs: 19_900 };
  for (const z of [0, 2, 4, 8]) {
    const a = confidenceOf(features({ ...base, similarity: bgA.mean + z * bgA.sd }, use, bgA), use);
    const b = confidenceOf(features({ ...base, similarity: bgB.mean + z * bgB.sd }, nomic, bgB), nomic);
    assert.ok(Math.abs(a - b) < 1e-9, `${z} sd above chance: ${a} vs ${b}`);
  }
  // The same raw cosine is weaker evidence where chance sits higher.
  assert.ok(
    confidenceOf(features({ ...base, similarity: 0.5 }, nomic, bgB), nomic) <
      confidenceOf(features({ ...base, similarity: 0.5 }, use, bgA), use),
  );
});

test("the background is the mean and spread of the cosines between every pair of memories", () => {
  const v = (...xs: number[]) => new Float32Array(xs);
  // Pairs: (x, y) 0, (x, d) √½, (y, d) √½.
  const bg = backgroundFrom([v(1, 0), v(0, 1), v(Math.SQRT1_2, Math.SQRT1_2)])!;
  assert.equal(bg.pairs, 3);
  assert.ok(Math.abs(bg.mean - (2 * Math.SQRT1_2) / 3) < 1e-6);
  const sd = Math.sqrt((0 + 0.5 + 0.5) / 3 - bg.mean ** 2);
  assert.ok(Math.abs(bg.sd - sd) < 1e-6);
  assert.equal(backgroundFrom([v(1, 0)]), null);
});

test("without a background (a tiny space) similarity falls back to the model's own range", () => {
  const use = confidenceModelFor("universal-sentence-encoder-lite");
  const nomic = confidenceModelFor("nomic-embed-text-v1.5");
  const at = (m: typeof use, q: number) => m.similarityRange[0] + q * (m.similarityRange[1] - m.similarityRange[0]);
  for (const q of [0, 0.25, 0.5, 1]) {
    const a = confidenceOf(features({ ...base, similarity: at(use, q) }, use), use);
    const b = confidenceOf(features({ ...base, similarity: at(nomic, q) }, nomic), nomic);
    assert.ok(Math.abs(a - b) < 1e-9);
  }
});

test("fitting: non-negative weights that separate the classes, a feature without signal gets no weight", () => {
  const r = createRng("fit");
  const rows: { f: Features; y: 0 | 1 }[] = [];
  for (let i = 0; i < 600; i++) {
    const y = r.chance(0.2) ? 1 : 0;
    const f = Object.fromEntries(FEATURES.map((k) => [k, r.next()])) as Features;
    f.similarity = Math.min(1, Math.max(0, (y ? 0.7 : 0.3) + (r.next() - 0.5) * 0.4));
    f.keyword = Math.min(1, Math.max(0, (y ? 0.6 : 0.35) + (r.next() - 0.5) * 0.5));
    f.dateMatch = 1 - f.similarity; // anti-correlated with the label: must be clipped at 0, not go negative
    rows.push({ f, y: y as 0 | 1 });
  }
  const fit = fitLogistic(rows, { iterations: 1500 });
  for (const k of FEATURES) assert.ok(fit.weights[k] >= 0);
  assert.ok(fit.weights.similarity > 1 && fit.weights.keyword > 0.3, JSON.stringify(fit.weights));
  assert.equal(fit.weights.dateMatch, 0);
  const model = { bias: fit.bias, weights: fit.weights, similarityRange: [0, 1] as [number, number], turnShare: 0 };
  const p = (y: 0 | 1) => rows.filter((x) => x.y === y).map((x) => confidenceOf(x.f, model));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(mean(p(1)) > 0.6 && mean(p(0)) < 0.4, `positives ${mean(p(1))}, negatives ${mean(p(0))}`);
});

test("turn evidence: weaker results move a share of the way to the turn's strongest; never lower, still monotone", () => {
  const logit = (p: number) => Math.log(p / (1 - p));
  const own = [0.3, 0.8, 0.2, 0.5];
  const out = withTurnEvidence(own, 0.5);
  assert.equal(out[1]!.confidence, 0.8, "the strongest result keeps its own confidence");
  assert.equal(out[1]!.lift, 0);
  for (const i of [0, 2, 3]) {
    assert.ok(Math.abs(out[i]!.lift - 0.5 * (logit(0.8) - logit(own[i]!))) < 1e-9, "half the logit gap");
    assert.ok(out[i]!.confidence > own[i]! && out[i]!.confidence < 0.8);
  }
  assert.deepEqual(
    withTurnEvidence(own, 0).map((x) => x.confidence),
    own,
    "share 0: own evidence only",
  );
  // Only the leading results are the turn's evidence: a strong 7th result lifts nobody.
  const tail = [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.95];
  assert.ok(
    withTurnEvidence(tail, 0.5)
      .slice(0, TURN_LEADERS)
      .every((x) => x.lift === 0),
  );
  // Raising any result's own confidence never lowers any result's confidence.
  const r = createRng("turn");
  for (let n = 0; n < 300; n++) {
    const xs = Array.from({ length: 8 }, () => 0.01 + r.next() * 0.98);
    const before = withTurnEvidence(xs, 0.5).map((x) => x.confidence);
    const j = r.int(0, xs.length - 1);
    const up = xs.map((x, i) => (i === j ? Math.min(0.99, x + 0.1) : x));
    withTurnEvidence(up, 0.5).forEach((x, i) => assert.ok(x.confidence >= before[i]! - 1e-12));
  }
});
