import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

/**
 * Smoke runs of the benchmarks on tiny inputs: every figure docs/benchmarks.md quotes is produced (finite, of the
 * right shape) by the committed code. Speed is not asserted here; that is what the benchmarks are for.
 */

const root = path.resolve(import.meta.dirname, "..");
const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function runJson(script: string, args: string[], env: Record<string, string> = {}): Promise<Record<string, any>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-smoke-"));
  dirs.push(dataDir);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: root,
      env: { ...process.env, MEMO_DATA_DIR: dataDir, MEMO_OFFLINE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}:\n${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        reject(new Error(`${script} printed no JSON: ${String(e)}\n${out.slice(-1000)}`));
      }
    });
  });
}

const finite = (x: unknown, what: string) =>
  assert.ok(typeof x === "number" && Number.isFinite(x), `${what} is a finite number (${String(x)})`);

test("npm run bench: whole-turn timings for both profiles, recall on both vector sets, and catch-up after another process's writes", async () => {
  const r = await runJson("scripts/bench.ts", [
    "--sizes",
    "400",
    "--queries",
    "12",
    "--no-embed-cost",
    "--widths",
    "10,400",
  ]);
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
  // The width sweep: the whole graph (400 of 400) is exact; the narrowest width can only do worse.
  assert.deepEqual(
    s.fitted.widthSweep.map((w: { width: number }) => w.width),
    [10, 400],
  );
  assert.equal(s.fitted.widthSweep[1].recallAt10, 1);
  assert.ok(s.fitted.widthSweep[0].recallAt10 <= 1);
  assert.ok(s.fitted.vectors.effectiveDimension > 5, "the fitted set follows the fitted spectrum");
  finite(s.buildMs, "index build time");
  assert.equal(s.queriesServedByVec0, 0, "the built index serves");
  assert.equal(s.foreignWrites.writes, 100);
  assert.equal(s.foreignWrites.servedAgain, true);
  assert.equal(s.foreignWrites.fullRebuilds, 0, "caught up from the log, not rebuilt");
  assert.equal(s.foreignWrites.rowsReplayed, 100);
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
