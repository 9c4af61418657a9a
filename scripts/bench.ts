/**
 * `npm run bench`: retrieval latency on synthetic stores, JSON out.
 *
 *   npm run bench -- --sizes 10000,100000 [--queries 200] [--dim 768] [--sets clustered,fitted] [--out bench.json]
 *                    [--no-embed-cost] [--stores-only] [--widths 512,1024,2048] [--recall-log recall.json]
 *                    [--query-seed 1234]
 *
 * Per size, two stores of n memories (generated from fixed seeds, cached under data/bench/), one per
 * vector set (scripts/bench/synthetic.ts): `clustered` (cluster structure of low intrinsic dimension) and
 * `fitted` (Gaussian with the spectrum of real USE-lite embeddings: no clusters to lean on). For each set:
 * the served vector leg's p50/p95 and recall@10 against an exact scan in this process (the baseline),
 * the index build time, `turn` and `turnNomic`, the chat turn's retrieval path (recallForPrompt: query
 * building, both legs per query, fusion, filter, packing) with the offline profile's settings and with
 * the nomic profile's (3 context messages and the anchor query), query embedding excluded, and with
 * `--widths` recall@10 and latency of the index at those search widths. For the clustered store also:
 * hybrid retrieval (searchWithVectors, one query), vec0 KNN and the keyword leg alone; and `foreignWrites`: how long after another process wrote 100 memories searches
 * are served by the index again. All in ms.
 *
 * `stages` / `stagesNomic`: the p50 of each stage of the turn (server/memory/retrieval/stages.ts) for the offline
 * and the nomic profile; `ratios.turnOverLegs`: the whole turn's p50 over the sum of its two legs' p50
 * (the `vector` and `keyword` stages of the same turns), per profile. `--recall-log` writes the queries,
 * the exact scan's answers and what each recall figure's search returned, so that a test can check every
 * recall figure against an exact scan of its own (scripts/bench.test.ts).
 *
 * `factsCost` (scripts/bench/facts-cost.ts, issue 47; clustered set): the offline profile's turn on the same store
 * with `--facts` current facts seeded (default 300; 0 leaves it out), facts leg and profile off / the leg alone /
 * both on: p50s, `ratios.onOverOff`, and the tokens of "[What I know]" per turn (`profileTokensPerTurn`: what
 * the profile adds).
 *
 * `extractionCost` (scripts/bench/extraction.ts, issue 42): learning facts with the fixture model — the queue's
 * exchanges/s catching up `--extraction-exchanges` (default 200), the store's bytes per learned fact, and the
 * chat turn's time to done with learning on vs off over `--extraction-turns` turns each (default 20), `--extraction-gap-ms` apart (default 1000), with
 * `ratios.p50OnOverOff`. `--no-extraction` leaves it out.
 * `turnCost` (scripts/bench/turn-cost.ts, issue 56): a whole chat turn (reply, exchange stored, its facts learned)
 * over `--turn-cost-turns` turns (default 20): texts embedded per turn, by kind, and process CPU ms per turn.
 * `--no-turn-cost` leaves it out; `npm run bench -- --sizes 0 --no-embed-cost --no-extraction` runs it alone.
 *
 * `--query-seed N`: the queries (and the turns drawn from them) come from seed N + size; the stores do not
 * depend on it. The default, 1234, gives the queries every earlier figure was measured on; another seed
 * draws fresh ones from the same distribution, so that a setting chosen on one seed's queries (the
 * search width) can be checked on queries it was not chosen on. Seeds are one stream shifted
 * (`streamOffset`): `queriesOverlapStore` says when the queries' draws could replay the store's (the default
 * does at 1M: its stream starts ~594M draws into the store's, which a 1M store uses ~1.8G of).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../server/core/config";
import { openDb } from "../server/db";
import { annFor, startAnnIndex, stopAnnIndex } from "../server/memory/index/ann-registry";
import { keywordSearchScored } from "../server/memory/retrieval/keyword-search";
import { buildQueries } from "../server/memory/retrieval/query-builder";
import { searchWithVectors } from "../server/memory/retrieval/retrieve";
import { defaultSettingsFor } from "../server/memory/retrieval/settings";
import { bindEmbeddingModel, insertMemories, purgeMemories, type NewMemory } from "../server/memory/store";
import { vec0Search, vectorSearchWithSource } from "../server/memory/retrieval/vector-search";
import { CLUSTERS, rng, streamOffset, text, vectorSpace, zipfSampler, type VectorSet } from "./bench/synthetic";
import { timeTurns, type BenchTurn } from "./bench/turn";
import { turnCost } from "./bench/turn-cost";
import { extractionCost } from "./bench/extraction";
import { factsCost } from "./bench/facts-cost";
import { exactTopK, loadMatrix, recallAt, stats, time } from "./bench/exact";

/** The ranked hits alone. */
const keywordSearch = (...a: Parameters<typeof keywordSearchScored>) => keywordSearchScored(...a).hits;

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000" },
    queries: { type: "string", default: "200" },
    dim: { type: "string", default: "768" },
    sets: { type: "string", default: "clustered,fitted" },
    out: { type: "string" },
    model: { type: "string", default: "nomic-embed-text-v1.5" },
    "embed-cost": { type: "boolean", default: true },
    /** Only generate (and cache) the stores, e.g. ahead of a long run. */
    "stores-only": { type: "boolean", default: false },
    /** Also measure recall@10 and latency of the index at these search widths (e.g. 512,1024,2048). */
    widths: { type: "string" },
    /** Write the queries, exact answers and searched answers behind every recall figure to this file. */
    "recall-log": { type: "string" },
    /** Seed of the queries (added to the size); the default draws the queries earlier figures were measured on. */
    "query-seed": { type: "string", default: "1234" },
    /** Learning facts' cost (scripts/bench/extraction.ts); --no-extraction leaves it out. */
    extraction: { type: "boolean", default: true },
    "extraction-exchanges": { type: "string", default: "200" },
    "extraction-turns": { type: "string", default: "20" },
    /** Between the reply measurement's turns (ms): a shorter gap than the default 1 s has replies begin during the runner's look-up. */
    "extraction-gap-ms": { type: "string", default: "1000" },
    /** Facts seeded for `factsCost` (scripts/bench/facts-cost.ts, clustered set); 0 leaves it out. */
    facts: { type: "string", default: "300" },
    /** A whole chat turn's texts embedded and CPU per turn (scripts/bench/turn-cost.ts); --no-turn-cost leaves it out. */
    "turn-cost": { type: "boolean", default: true },
    "turn-cost-turns": { type: "string", default: "20" },
  },
  allowNegative: true,
});

const SPACE = "bench";
const DIM = Number(values.dim);
const NQ = Number(values.queries);
const QUERY_SEED = Number(values["query-seed"]);
if (!Number.isInteger(QUERY_SEED)) throw new Error(`--query-seed must be an integer (got ${values["query-seed"]})`);
const MODEL = values.model!;
const OFFLINE_PROFILE = "universal-sentence-encoder-lite";
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** What --recall-log writes per size and vector set: each recall figure's answers, by its path in the output. */
interface RecallLog {
  n: number;
  set: VectorSet;
  store: string;
  k: number;
  queries: number[][];
  exact: number[][];
  figures: { path: string; found: number[][] }[];
}
const recallLogs: RecallLog[] = [];

async function buildStore(n: number, set: VectorSet) {
  const dir = path.join(dataDir(), "bench");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `store-${n}-d${DIM}${set === "clustered" ? "" : `-${set}`}.db`);
  const opened = openDb(file);
  const db = opened.sqlite;
  bindEmbeddingModel(db, MODEL, DIM);
  const have = (db.prepare("SELECT count(*) AS n FROM memories WHERE space_id = ?").get(SPACE) as { n: number }).n;
  if (have === n) return { opened, built: false, buildMs: 0 };
  if (have > 0) {
    opened.sqlite.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return buildStore(n, set);
  }
  const t0 = performance.now();
  const r = rng(n);
  const zipf = zipfSampler(r);
  const space = vectorSpace(set, DIM);
  const BATCH = 2000;
  for (let start = 0; start < n; start += BATCH) {
    const items: NewMemory[] = [];
    const vecs: Float32Array[] = [];
    for (let i = start; i < Math.min(n, start + BATCH); i++) {
      const topic = Math.floor(r() * CLUSTERS);
      vecs.push(space.point(topic, r));
      // The fitted store is timed on its vector leg only: short texts keep its build (FTS) cheaper.
      const words = set === "clustered" ? 20 + Math.floor(r() * 40) : 4;
      items.push({
        spaceId: SPACE,
        content: text(r, zipf, words, topic),
        timestamp: new Date(1.6e12 + i * 60_000).toISOString(),
      });
    }
    insertMemories(db, items, vecs, MODEL);
    if (start % 50_000 === 0) log(`building the ${set} store of ${n}: ${Math.min(n, start + BATCH)}/${n}`);
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  return { opened, built: true, buildMs: performance.now() - t0 };
}

/** Start the served index: loaded from its saved files when current, else built (and the build timed). */
async function startIndex(db: import("better-sqlite3").Database, file: string) {
  const annDir = file.replace(/\.db$/, ".ann");
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const ann = startAnnIndex(db, DIM, annDir);
  await ann.settled();
  const ms = performance.now() - t0;
  // The build time of a loaded index is the one measured when it was built (same code, kept beside it).
  const sidecar = path.join(annDir, "bench-build.json");
  if (!ann.loadedFromFile)
    fs.writeFileSync(sidecar, JSON.stringify({ buildMs: Math.round(ms), at: new Date().toISOString() }));
  const built = fs.existsSync(sidecar)
    ? (JSON.parse(fs.readFileSync(sidecar, "utf8")) as { buildMs: number; at: string })
    : null;
  return {
    buildMs: ann.loadedFromFile ? (built?.buildMs ?? null) : Math.round(ms),
    ...(ann.loadedFromFile ? { loadMs: Math.round(ms), builtAt: built?.at ?? null } : {}),
    indexLoadedFromFile: ann.loadedFromFile,
    indexMB: ann.memoryMB(),
    rssGrowthMB: +((process.memoryUsage().rss - rss0) / 1048576).toFixed(1),
  };
}

/** Another process writes 100 memories; how long until this process's searches use the index again. */
async function foreignWrites(db: import("better-sqlite3").Database, file: string, q: Float32Array) {
  const ann = annFor(db)!;
  const before = { ...ann.stats };
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(import.meta.dirname, "bench", "foreign-writer.ts"),
      "--db",
      file,
      "--space",
      SPACE,
      "--n",
      "100",
      "--dim",
      String(DIM),
      "--model",
      MODEL,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  await new Promise<void>((resolve, reject) =>
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`foreign writer exited ${code}`)))),
  );
  const t0 = performance.now();
  let searches = 0;
  let source = "vec0";
  while (source !== "ann" && performance.now() - t0 < 600_000) {
    searches++;
    source = vectorSearchWithSource(db, SPACE, q, 10).source;
    if (source !== "ann") await new Promise((r) => setTimeout(r, 10));
  }
  const servedByIndexAfterMs = +(performance.now() - t0).toFixed(1);
  const ids = JSON.parse(out) as string[];
  const seen = vectorSearchWithSource(db, SPACE, q, 10).source === "ann" && ids.length === 100;
  purgeMemories(db, ids); // leave the cached store as it was (this process's write: the hook updates the index)
  return {
    writes: ids.length,
    servedByIndexAfterMs,
    searchesUntilServed: searches,
    fullRebuilds: ann.stats.builds - before.builds,
    rowsReplayed: ann.stats.replayedRows - before.replayedRows,
    servedAgain: seen,
  };
}

/** recall@10 and latency of the index at each of `--widths`, over the same queries and exact answers. */
function widthSweep(
  db: import("better-sqlite3").Database,
  queries: { vec: Float32Array }[],
  truths: number[][],
  pool: number,
  k: number,
) {
  const ann = annFor(db)!;
  return values
    .widths!.split(",")
    .map(Number)
    .map((width) => {
      const ms: number[] = [];
      const answers: number[][] = [];
      queries.forEach((q) => {
        const [t, found] = time(() => ann.search(SPACE, q.vec, pool, width) ?? []);
        ms.push(t);
        answers.push(found.slice(0, k).map((h) => h.rid));
      });
      return { width, recallAt10: recallAt(answers, truths, k), ...stats(ms), answers };
    });
}

async function benchSet(n: number, set: VectorSet) {
  const { opened, built, buildMs } = await buildStore(n, set);
  const db = opened.sqlite;
  const settings = defaultSettingsFor(MODEL);
  // The queries' own generator: the store was drawn from rng(n) in buildStore, so the seed changes only queries.
  const r = rng(QUERY_SEED + n);
  // Seeds are streams of one sequence shifted: a query seed whose stream runs into the store's draws could
  // replay stored vectors as queries (an aligned one would be its own nearest neighbour). Bounds are generous:
  // a memory takes under 2,000 draws (a 768-d point and its text), a query and its turn under 4,000.
  const offset = streamOffset(n, QUERY_SEED + n);
  const queriesOverlapStore = offset < n * 2000 && offset + NQ * 4000 > 0;
  if (queriesOverlapStore) log(`--query-seed ${QUERY_SEED}: the queries' draws overlap the ${set} store's of ${n}`);
  const zipf = zipfSampler(r);
  const space = vectorSpace(set, DIM);
  const queries = Array.from({ length: NQ }, () => {
    const topic = Math.floor(r() * CLUSTERS);
    return { topic, vec: space.point(topic, r), text: text(r, zipf, 4 + Math.floor(r() * 6), topic) };
  });
  const index = await startIndex(db, opened.file);
  const { mat, rids } = loadMatrix(db, SPACE, DIM);
  const k = 10;
  const pool = 50;
  for (const q of queries.slice(0, 10)) {
    vectorSearchWithSource(db, SPACE, q.vec, pool);
    exactTopK(mat, rids, q.vec, k);
  }
  const vector: number[] = [];
  const exact: number[] = [];
  let servedByVec0 = 0;
  const truths: number[][] = [];
  const served10: number[][] = [];
  for (const q of queries) {
    const [tv, served] = time(() => vectorSearchWithSource(db, SPACE, q.vec, pool));
    vector.push(tv);
    if (served.source !== "ann") servedByVec0++;
    const [te, truth] = time(() => exactTopK(mat, rids, q.vec, k));
    exact.push(te);
    truths.push(truth);
    served10.push(served.hits.slice(0, k).map((h) => h.rid));
  }
  const out: Record<string, unknown> = {
    vectors: space.describe,
    vector: stats(vector),
    exact: stats(exact),
    recallAt10: recallAt(served10, truths, k),
    ...index,
    storeBuildMs: Math.round(buildMs),
    storeBuilt: built,
    queriesServedByVec0: servedByVec0,
    queriesOverlapStore,
  };
  const figures = [{ path: "recallAt10", found: served10 }];
  if (values.widths) {
    const sweep = widthSweep(db, queries, truths, pool, k);
    out.widthSweep = sweep.map(({ answers, ...w }) => w);
    sweep.forEach((w, i) => figures.push({ path: `widthSweep.${i}.recallAt10`, found: w.answers }));
  }
  if (values["recall-log"])
    recallLogs.push({
      n,
      set,
      store: path.basename(opened.file),
      k,
      queries: queries.map((q) => Array.from(q.vec)),
      exact: truths,
      figures,
    });
  // Chat turns (both sets: the fitted one's graph is the harder, the realistic one): a message of 8–16
  // words (so the nomic profile adds its anchor query) after 3 earlier user messages on the same topic;
  // vectors drawn like the stored ones (main query, then anchor).
  const turns: BenchTurn[] = queries.map((q) => ({
    message: text(r, zipf, 8 + Math.floor(r() * 9), q.topic),
    context: Array.from({ length: 3 }, () => text(r, zipf, 5 + Math.floor(r() * 8), q.topic)),
    vectors: [q.vec, space.point(q.topic, r)],
  }));
  const { stages, ...turn } = await timeTurns(db, MODEL, DIM, SPACE, OFFLINE_PROFILE, turns);
  const { stages: stagesNomic, ...turnNomic } = await timeTurns(db, MODEL, DIM, SPACE, MODEL, turns);
  Object.assign(out, { turn, turnNomic, stages, stagesNomic });
  // The turn over its own two legs: what everything after the search costs, as a multiple of the search.
  const overLegs = (t: { p50: number }, s: typeof stages) => +(t.p50 / (s.vector + s.keyword)).toFixed(3);
  out.ratios = { turnOverLegs: { offline: overLegs(turn, stages), nomic: overLegs(turnNomic, stagesNomic) } };
  if (set === "clustered" && Number(values.facts) > 0)
    out.factsCost = await factsCost(db, MODEL, DIM, SPACE, OFFLINE_PROFILE, turns, Number(values.facts), r);
  if (set === "clustered") {
    const hybrid: number[] = [];
    const vec0: number[] = [];
    const keyword: number[] = [];
    for (const q of queries.slice(0, 10)) keywordSearch(db, SPACE, q.text, pool, settings);
    for (const [i, q] of queries.entries()) {
      const qs = buildQueries(q.text, [], { contextMessages: 0, anchorQuery: false });
      hybrid.push(time(() => searchWithVectors(db, { query: q.text, spaceId: SPACE, k }, settings, qs, [q.vec]))[0]);
      if (i < 50) vec0.push(time(() => vec0Search(db, SPACE, q.vec, pool))[0]); // brute force: 50 queries are enough
      keyword.push(time(() => keywordSearch(db, SPACE, q.text, pool, settings))[0]);
    }
    Object.assign(out, { hybrid: stats(hybrid), vec0: stats(vec0), keyword: stats(keyword) });
    out.foreignWrites = await foreignWrites(db, opened.file, queries[0]!.vec);
    out.ratios = {
      ...(out.ratios as object),
      vectorOverExact: +((out.vector as { p50: number }).p50 / (out.exact as { p50: number }).p50).toFixed(3),
      vectorOverVec0: +((out.vector as { p50: number }).p50 / stats(vec0).p50).toFixed(3),
      hybridOverExact: +(stats(hybrid).p50 / (out.exact as { p50: number }).p50).toFixed(3),
    };
  }
  stopAnnIndex(db);
  db.close();
  return out;
}

/** What query embedding costs per turn with the offline model (left out of `turn`), on this machine. */
async function queryEmbeddingCost() {
  const { loadUseLite } = await import("../server/embedder/engines/use-lite");
  const engine = await loadUseLite();
  const r = rng(5);
  const zipf = zipfSampler(r);
  const ms: number[] = [];
  for (let i = 0; i < 25; i++) {
    const [context, message] = [text(r, zipf, 8, i), text(r, zipf, 12, i)];
    const qs = buildQueries(message, [context], { contextMessages: 1, anchorQuery: false });
    const t = performance.now();
    await engine.embed(qs.map((q) => q.text));
    if (i >= 5) ms.push(performance.now() - t);
  }
  await engine.close();
  return {
    model: engine.modelId,
    perTurn: stats(ms),
    note: "USE-lite in process, the offline profile's one query per turn; nomic's cost per query: npm run bench:embed",
  };
}

async function main() {
  const sizes = values
    .sizes!.split(",")
    .map((s) => Number(s.trim()))
    .filter((x) => x > 0);
  const sets = values.sets!.split(",").map((s) => s.trim()) as VectorSet[];
  const result = {
    command: `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      cpus: os.availableParallelism(),
      node: process.version,
      loadavg: os.loadavg().map((x) => +x.toFixed(2)),
    },
    dim: DIM,
    queries: NQ,
    querySeed: QUERY_SEED,
    queryEmbedding: values["embed-cost"] ? await queryEmbeddingCost() : null,
    sizes: [] as unknown[],
    extractionCost: null as unknown,
    turnCost: null as unknown,
  };
  if (values["stores-only"]) {
    for (const n of sizes) for (const set of sets) (await buildStore(n, set)).opened.sqlite.close();
    return;
  }
  for (const n of sizes) {
    const entry: Record<string, unknown> = { n };
    for (const set of sets) {
      log(`size ${n}, ${set} vectors…`);
      const o = await benchSet(n, set);
      if (set === "clustered") Object.assign(entry, o);
      else entry[set] = o;
    }
    result.sizes.push(entry);
    if (values.out) fs.writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`); // partial results survive a long run
  }
  if (values.extraction) {
    log("extraction cost (learning facts with the fixture model)…");
    result.extractionCost = await extractionCost({
      exchanges: Number(values["extraction-exchanges"]),
      turns: Number(values["extraction-turns"]),
      gapMs: Number(values["extraction-gap-ms"]),
    });
  }
  if (values["turn-cost"]) {
    log("a whole chat turn's embedding calls and CPU…");
    result.turnCost = await turnCost({ turns: Number(values["turn-cost-turns"]) });
  }
  const json = JSON.stringify(result, null, 2);
  if (values.out) fs.writeFileSync(values.out, `${json}\n`);
  if (values["recall-log"]) fs.writeFileSync(values["recall-log"], JSON.stringify(recallLogs));
  console.log(json);
}

void main();
