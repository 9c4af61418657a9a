import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { openDb } from "../server/db";
import { STAGES } from "../server/memory/retrieval/stages";
import { vec0Search } from "../server/memory/retrieval/vector-search";
import { benchDirs, finite, runJson } from "../server/test/bench-smoke";
import { type BundledHarness, bundleHarness } from "../server/test/bundle-harness";
import { rng, streamOffset } from "./bench/synthetic";

/**
 * Smoke runs of the benchmarks on tiny inputs: every figure docs/benchmarks.md quotes is produced (finite, of the
 * right shape) by the committed code. Speed is not asserted here; that is what the benchmarks are for.
 */

const dirs = benchDirs;
/** scripts/bench.ts compiled once for its two runs (server/test/bundle-harness.ts says why). */
let bench: BundledHarness;
before(async () => {
  bench = await bundleHarness("scripts/bench.ts");
});
after(() => {
  dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
  bench?.dispose();
});

/** Every `recallAt10` in the bench's output, by its path (e.g. "fitted.widthSweep.0.recallAt10"). */
function recallFigures(o: unknown, at = ""): Map<string, number> {
  const out = new Map<string, number>();
  if (o && typeof o === "object")
    for (const [key, v] of Object.entries(o)) {
      const p = at ? `${at}.${key}` : key;
      if (key === "recallAt10") out.set(p, v as number);
      else for (const [q, x] of recallFigures(v, p)) out.set(q, x);
    }
  return out;
}

interface RecallLog {
  n: number;
  set: string;
  store: string;
  k: number;
  queries: number[][];
  exact: number[][];
  figures: { path: string; found: number[][] }[];
}
const recallLogOf = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as RecallLog[];

/**
 * Every recall figure of one size's output (`s`) against an exact scan: the exact answers are recomputed
 * with vec0's brute-force KNN over the bench's own store, and each figure from the answers its search gave.
 */
function checkRecallFigures(s: unknown, recallLog: string, dataDir: string) {
  const reported = recallFigures(s);
  const checked = new Set<string>();
  for (const l of recallLogOf(recallLog)) {
    const opened = openDb(path.join(dataDir, "bench", l.store));
    try {
      const exact = l.queries.map((q) =>
        vec0Search(opened.sqlite, "bench", new Float32Array(q), l.k)
          .map((h) => h.rid)
          .sort((a, b) => a - b),
      );
      assert.deepEqual(
        l.exact.map((e) => [...e].sort((a, b) => a - b)),
        exact,
        `${l.set}: the bench's baseline is the exact top ${l.k}`,
      );
      for (const f of l.figures) {
        let hits = 0;
        f.found.forEach((found, i) => (hits += exact[i]!.filter((x) => found.slice(0, l.k).includes(x)).length));
        const p = l.set === "clustered" ? f.path : `${l.set}.${f.path}`;
        assert.equal(reported.get(p), +(hits / (l.queries.length * l.k)).toFixed(4), `${p} against the exact scan`);
        checked.add(p);
      }
    } finally {
      opened.sqlite.close();
    }
  }
  assert.deepEqual([...checked].sort(), [...reported.keys()].sort(), "every recall figure was checked");
}

test("npm run bench: whole-turn timings and stage costs for both profiles, the facts leg and profile on and off, recall on both vector sets against an exact scan, and catch-up after another process's writes", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-smoke-"));
  const recallLog = path.join(dataDir, "recall.json");
  const r = await runJson(
    bench.file,
    [
      "--sizes",
      "400",
      "--queries",
      "12",
      "--no-embed-cost",
      "--widths",
      "10,400",
      "--recall-log",
      recallLog,
      "--no-extraction",
    ],
    {},
    dataDir,
  );
  const s = r.sizes[0];
  assert.equal(s.n, 400);
  for (const key of ["hybrid", "vector", "exact", "keyword", "turn", "turnNomic"]) {
    finite(s[key].p50, `${key}.p50`);
    finite(s[key].p95, `${key}.p95`);
  }
  // The synthetic store's memories are notes that use their topic's words: some of the things named are
  // told of (at 400 memories most topic words are in none), so the timed path reads the FTS rows.
  assert.equal(s.turn.queriesPerTurn, 1, "the offline profile: one query (1 context message, no anchor)");
  assert.equal(s.turnNomic.queriesPerTurn, 2, "the nomic profile: main query with 3 context messages, and the anchor");
  finite(s.recallAt10, "clustered recall@10");
  finite(s.fitted.recallAt10, "fitted recall@10");
  finite(s.fitted.turn.p50, "fitted turn.p50");
  // The width sweep: the whole graph (400 of 400) is exact (the narrow width's figure is checked below).
  assert.deepEqual(
    s.fitted.widthSweep.map((w: { width: number }) => w.width),
    [10, 400],
  );
  assert.equal(s.fitted.widthSweep[1].recallAt10, 1);
  assert.ok(s.fitted.vectors.effectiveDimension > 5, "the fitted set follows the fitted spectrum");
  finite(s.buildMs, "index build time");
  assert.equal(s.queriesServedByVec0, 0, "the built index serves");
  assert.equal(s.foreignWrites.writes, 100);
  assert.equal(s.foreignWrites.servedAgain, true);
  assert.equal(s.foreignWrites.fullRebuilds, 0, "caught up from the log, not rebuilt");
  assert.equal(s.foreignWrites.rowsReplayed, 100);

  // Each stage of the pipeline has its cost, for both profiles and both vector sets, and the ratio of the
  // turn to its own legs is that of those figures.
  for (const [where, o] of [
    ["clustered", s],
    ["fitted", s.fitted],
  ] as const) {
    for (const key of ["stages", "stagesNomic"]) {
      assert.deepEqual(Object.keys(o[key]), [...STAGES], `${where}.${key}: every stage, in pipeline order`);
      for (const stage of STAGES) finite(o[key][stage], `${where}.${key}.${stage}`);
    }
    assert.ok(o.stages.vector > 0 && o.stages.keyword > 0, `${where}: the turn's legs were timed`);
    assert.equal(o.ratios.turnOverLegs.offline, +(o.turn.p50 / (o.stages.vector + o.stages.keyword)).toFixed(3));
    assert.equal(
      o.ratios.turnOverLegs.nomic,
      +(o.turnNomic.p50 / (o.stagesNomic.vector + o.stagesNomic.keyword)).toFixed(3),
    );
  }

  // The facts leg and the profile (issue 47): the same turns with both off, the leg alone, both on, over a store
  // with facts seeded; the profile fills its budget every turn, and the facts are gone from the cached store after.
  const fc = s.factsCost;
  assert.ok(fc.facts > 250 && fc.facts <= 300, `facts seeded (${fc.facts})`);
  for (const key of ["off", "legOnly", "on"]) {
    finite(fc[key].p50, `factsCost.${key}.p50`);
    finite(fc[key].factTokensPerTurn, `factsCost.${key}.factTokensPerTurn`);
  }
  assert.equal(fc.ratios.onOverOff, +(fc.on.p50 / fc.off.p50).toFixed(3));
  assert.equal(fc.ratios.legOverOff, +(fc.legOnly.p50 / fc.off.p50).toFixed(3));
  assert.equal(fc.off.stages.profile < fc.on.stages.profile, true, "the profile is read only when on");
  assert.ok(fc.on.factsPerTurn > fc.legOnly.factsPerTurn, "the profile's facts are stated");
  assert.ok(
    fc.profileTokensPerTurn > 60 && fc.profileTokensPerTurn <= fc.settings.profileTokens,
    `the profile fills its budget (${fc.profileTokensPerTurn} of ${fc.settings.profileTokens} tokens)`,
  );
  assert.equal(fc.profileTokensPerTurn, +(fc.on.factTokensPerTurn - fc.legOnly.factTokensPerTurn).toFixed(1));
  const cached = openDb(path.join(dataDir, "bench", "store-400-d768.db"));
  try {
    assert.equal((cached.sqlite.prepare("SELECT count(*) AS n FROM facts").get() as { n: number }).n, 0);
  } finally {
    cached.sqlite.close();
  }

  // Every recall figure in the output is the share of an exact scan's top 10 that its search found.
  checkRecallFigures(s, recallLog, dataDir);
  const logged = recallLogOf(recallLog);

  // Fresh queries (--query-seed) against the same cached stores: the store is not rebuilt, none of the
  // queries is one of the default seed's, and their recall figures hold against an exact scan too.
  assert.equal(r.querySeed, 1234, "the default seed: the queries earlier figures were measured on");
  const freshLog = path.join(dataDir, "recall-fresh.json");
  const fresh = await runJson(
    bench.file,
    [
      ...["--sizes", "400", "--sets", "fitted", "--queries", "12", "--no-embed-cost", "--widths", "10,400"],
      ...["--query-seed", "77", "--recall-log", freshLog],
      // Only the recall figures are read here: without the turn's and learning's legs (the first run's, and
      // bench-extraction.test.ts's), whose 40 turns 1 s apart were this file's longest wait.
      ...["--no-turn-cost", "--no-extraction"],
    ],
    {},
    dataDir,
  );
  assert.equal(fresh.querySeed, 77);
  const f = fresh.sizes[0].fitted;
  assert.equal(f.storeBuilt, false, "the store cached by the first run, unchanged by the seed");
  assert.equal(f.queriesOverlapStore, false);
  assert.equal(s.fitted.queriesOverlapStore, false);
  const before = new Set(logged.find((l) => l.set === "fitted")!.queries.map((q) => q.join()));
  const freshQueries = recallLogOf(freshLog)[0]!.queries;
  assert.equal(freshQueries.filter((q) => before.has(q.join())).length, 0, "the fresh queries are new ones");
  checkRecallFigures(fresh.sizes[0], freshLog, dataDir);
});

test("streamOffset: seeds whose streams are shifts of each other, by the number of draws", () => {
  const a = rng(1000);
  const shifted = (1000 + 0x6d2b79f5 * 5) >>> 0;
  assert.equal(streamOffset(1000, shifted), 5);
  for (let i = 0; i < 5; i++) a();
  const b = rng(shifted);
  assert.deepEqual([a(), a(), a()], [b(), b(), b()]);
  assert.equal(streamOffset(shifted, 1000), -5);
  assert.equal(streamOffset(7, 7), 0);
});

test("npm run bench:ingest: a finite ratio with the offline model, tokens counted by its own tokenizer", async () => {
  const r = await runJson("scripts/bench-ingest.ts", ["--mb", "0.01", "--pieces", "1"], {
    MEMO_EMBED_MODEL: "use-lite",
  });
  assert.equal(r.model, "universal-sentence-encoder-lite");
  assert.ok(r.input.tokens > 1000, `tokens counted (${r.input.tokens})`);
  assert.deepEqual(r.input.tokensCountedBy, ["universal-sentence-encoder-lite SentencePiece tokenizer (in process)"]);
  finite(r.ratio, "ratio");
  finite(r.pipeline.tokensPerSec, "pipeline tokens/s");
  finite(r.embedder.tokensPerSec, "embedder tokens/s");
});
