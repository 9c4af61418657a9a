/**
 * Retrieval evaluation with the offline embedding model (USE-lite, served by the real embedding server).
 *
 *   npm run eval:retrieval [-- --out FILE] [--markdown FILE] [--conversations N] [--seed S] [--store DIR] [--quiet]
 *
 * --store DIR keeps the store there and reuses it on the next run when it holds the same test set.
 *
 * Builds a temp store from the deterministic test set (server/test/retrieval-eval), embeds every query
 * text once, then runs the retrieval pipeline after embedding (`searchWithVectors`) under many settings:
 * each leg alone, RRF (equal and weighted), linear fusion with dense weights 0.2–1.0, with and without
 * conversation context and the anchor query, and the quality filter at several min_similarity values.
 * Prints a JSON summary (stdout) and a Markdown table (stdout, after the JSON); progress goes to stderr.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_CONVERSATIONS, DEFAULT_SEED, generateDataset, type EvalDataset } from "../server/test/retrieval-eval/dataset";
import {
  applyPatch,
  LEG_KEYWORD,
  LEG_VECTOR,
  openEvalStore,
  QueryVectorCache,
  runConfig,
  useLiteDefaults,
  type ConfigResult,
  type SettingsPatch,
} from "../server/test/retrieval-eval/harness";
import type { RetrievalSettings } from "../server/memory/settings";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    markdown: { type: "string" },
    conversations: { type: "string" },
    seed: { type: "string" },
    quiet: { type: "boolean", default: false },
    store: { type: "string" },
  },
});

const log = (m: string) => {
  if (!values.quiet) process.stderr.write(`[eval] ${m}\n`);
};

const K = 10;

const FUSIONS: { id: string; patch: SettingsPatch }[] = [
  { id: "rrf v1:f1", patch: { fusion: "rrf", rrfK: 60, weights: { vector: 1, fts: 1 } } },
  { id: "rrf v0.5:f1", patch: { fusion: "rrf", rrfK: 60, weights: { vector: 0.5, fts: 1 } } },
  { id: "rrf v0.3:f1", patch: { fusion: "rrf", rrfK: 60, weights: { vector: 0.3, fts: 1 } } },
  ...[0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0].map((v) => ({ id: `linear v${v}:f1`, patch: { fusion: "linear" as const, weights: { vector: v, fts: 1 } } })),
];

const QUERY_VARIANTS: { id: string; patch: SettingsPatch }[] = [0, 1, 3].flatMap((ctx) => [
  { id: `ctx${ctx} noanchor`, patch: { contextMessages: ctx, anchorQuery: false } },
  { id: `ctx${ctx} anchor1`, patch: { contextMessages: ctx, anchorQuery: true, weights: { anchor: 1 } } },
  { id: `ctx${ctx} anchor0.5`, patch: { contextMessages: ctx, anchorQuery: true, weights: { anchor: 0.5 } } },
]);

const MIN_SIMILARITIES = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7];

function merge(...patches: SettingsPatch[]): SettingsPatch {
  const out: SettingsPatch = {};
  for (const p of patches) Object.assign(out, { ...p, weights: { ...(out.weights ?? {}), ...(p.weights ?? {}) } });
  return out;
}

function describe(s: RetrievalSettings): string {
  const fusion = s.fusion === "rrf" ? `rrf(k=${s.rrfK})` : "linear";
  const w = `v${s.weights.vector}:f${s.weights.fts}`;
  const anchor = s.anchorQuery ? `anchor×${s.weights.anchor}` : "no anchor";
  const filter = s.qualityFilter ? `filter ≥${s.minSimilarity}` : "no filter";
  return `${fusion} ${w}, ctx ${s.contextMessages}, ${anchor}, ${filter}`;
}

async function main() {
  const tAll = Date.now();
  const ds: EvalDataset = generateDataset({
    seed: values.seed ? (/^\d+$/.test(values.seed) ? Number(values.seed) : values.seed) : DEFAULT_SEED,
    conversations: values.conversations ? Number(values.conversations) : DEFAULT_CONVERSATIONS,
  });
  const nMem = ds.conversations.reduce((s, c) => s + c.memories.length, 0);
  log(`test set: ${ds.conversations.length} conversations, ${nMem} memories, ${ds.questions.length} questions`);

  const store = await openEvalStore(ds, { log, dir: values.store, reuse: Boolean(values.store) });
  try {
    const cache = new QueryVectorCache(store.ctx);
    await cache.prepare([...ds.questions, ...ds.unanswerable]);
    log(`embedded ${cache.size} distinct query texts in ${cache.embedMs} ms`);

    const defaults = useLiteDefaults(store.model);
    const results: ConfigResult[] = [];
    const seen = new Set<string>();
    const run = (group: string, name: string, patch: SettingsPatch) => {
      const settings = applyPatch(defaults, patch);
      const key = JSON.stringify(settings);
      if (seen.has(key + group)) return results.find((r) => JSON.stringify(r.settings) === key && r.group === group)!;
      seen.add(key + group);
      const r = runConfig(store, cache, ds.questions, settings, { name, group }, K, ds.unanswerable);
      results.push(r);
      return r;
    };

    const tSearch = Date.now();
    // 1. Each leg alone, under every query variant.
    for (const qv of QUERY_VARIANTS) {
      run("vector only", `vector ${qv.id}`, merge({ fusion: "linear" }, qv.patch, LEG_VECTOR));
      run("keyword only", `keyword ${qv.id}`, merge({ fusion: "linear" }, qv.patch, LEG_KEYWORD));
    }
    log(`legs done (${results.length} configs)`);
    // 2. Fusion methods × query variants, quality filter off.
    for (const f of FUSIONS) for (const qv of QUERY_VARIANTS) run("fusion", `${f.id} ${qv.id}`, merge(f.patch, qv.patch, { qualityFilter: false }));
    log(`fusion grid done (${results.length} configs)`);
    // 3. Quality filter sweep on the best fusion configurations (and the shipped default's shape).
    const fusionRuns = results.filter((r) => r.group === "fusion").sort((a, b) => b.recall - a.recall || b.mrr - a.mrr);
    const bases = [...fusionRuns.slice(0, 5).map((r) => r.settings), { ...defaults, qualityFilter: false }];
    for (const b of bases) {
      for (const minSimilarity of MIN_SIMILARITIES) {
        const s: SettingsPatch = { ...b, qualityFilter: true, minSimilarity };
        run("quality filter", describe(applyPatch(defaults, s)), s);
      }
    }
    // 4. The shipped defaults, and the legs under the defaults' query settings (the spec's comparison).
    const def = run("default", `default (${describe(defaults)})`, {});
    const qp: SettingsPatch = { contextMessages: defaults.contextMessages, anchorQuery: defaults.anchorQuery, weights: { anchor: defaults.weights.anchor } };
    const legV = run("default legs", "vector only, default query settings", merge(qp, LEG_VECTOR));
    const legK = run("default legs", "keyword only, default query settings", merge(qp, LEG_KEYWORD));
    const searchMs = Date.now() - tSearch;
    log(`${results.length} configurations × ${ds.questions.length} questions in ${searchMs} ms`);

    const bestOf = (group: string) => results.filter((r) => r.group === group).sort((a, b) => b.recall - a.recall || b.mrr - a.mrr)[0]!;
    const bestLeg = [bestOf("vector only"), bestOf("keyword only")].sort((a, b) => b.recall - a.recall)[0]!;
    const bestFused = [bestOf("fusion"), bestOf("quality filter")].sort((a, b) => b.recall - a.recall || b.mrr - a.mrr)[0]!;
    const slim = (r: ConfigResult) => ({
      name: r.name,
      group: r.group,
      recall10: r.recall,
      recall6: r.recall6,
      mrr10: r.mrr,
      returned: r.returned,
      returnedUnanswerable: r.returnedUnanswerable,
      perType: Object.fromEntries(Object.entries(r.perType).map(([t, f]) => [t, { n: f.n, recall10: f.recall, recall6: f.recall6, mrr10: f.mrr }])),
      settings: r.settings,
      ms: r.ms,
    });
    const typeCounts: Record<string, number> = {};
    for (const q of ds.questions) typeCounts[q.type] = (typeCounts[q.type] ?? 0) + 1;
    const summary = {
      model: store.model,
      k: K,
      dataset: {
        seed: ds.seed,
        conversations: ds.conversations.length,
        memories: nMem,
        questions: ds.questions.length,
        unanswerable: ds.unanswerable.length,
        questionTypes: typeCounts,
        zeroKeywordOverlap: ds.questions.filter((q) => q.overlap === 0).length,
      },
      timings: {
        embedderStartMs: store.startMs,
        ingestMs: store.ingestMs,
        queryEmbedMs: cache.embedMs,
        queryTexts: cache.size,
        searchMs,
        configurations: results.length,
        totalMs: Date.now() - tAll,
      },
      default: { ...slim(def), legs: { vector: slim(legV), keyword: slim(legK) }, atLeastBestLeg: def.recall >= Math.max(legV.recall, legK.recall) },
      best: { leg: slim(bestLeg), fused: slim(bestFused) },
      results: results.map(slim),
    };
    const json = JSON.stringify(summary, null, 2);
    if (values.out) fs.writeFileSync(values.out, json + "\n");
    process.stdout.write(json + "\n\n");
    const md = markdown(summary.dataset, results, def, legV, legK);
    if (values.markdown) fs.writeFileSync(values.markdown, md);
    process.stdout.write(md);
    log(`done in ${((Date.now() - tAll) / 1000).toFixed(1)} s`);
  } finally {
    await store.close();
  }
}

function markdown(dataset: { conversations: number; memories: number; questions: number }, results: ConfigResult[], def: ConfigResult, legV: ConfigResult, legK: ConfigResult): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `## Retrieval eval: USE-lite, ${dataset.conversations} conversations, ${dataset.memories} memories, ${dataset.questions} questions, recall@${K} / MRR@${K}`,
    "",
    `Default: recall ${f(def.recall)}, MRR ${f(def.mrr)} — vector leg ${f(legV.recall)}, keyword leg ${f(legK.recall)} (same query settings).`,
    "",
    "Per-type columns are recall@10. *returned*: mean results left after the quality filter (of 10) for answerable questions;",
    "*noise*: the same for unanswerable questions (nothing relevant exists; lower means less unrelated text in the prompt).",
    "",
    "| group | configuration | recall@10 | MRR@10 | recall@6 | paraphrase | keyword | follow-up | long | returned | noise |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    const t = r.perType;
    lines.push(
      `| ${r.group} | ${r.name} | ${f(r.recall)} | ${f(r.mrr)} | ${f(r.recall6)} | ${f(t.paraphrase.recall)} | ${f(t.keyword.recall)} | ${f(t.followup.recall)} | ${f(t.long.recall)} | ${r.returned.toFixed(1)} | ${r.returnedUnanswerable?.toFixed(1) ?? "–"} |`,
    );
  }
  return lines.join("\n") + "\n";
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
