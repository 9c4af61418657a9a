/**
 * A corrupt saved ANN index (issue 33, item 5): random bytes in a space's graph file, or a row count of
 * 0x7fffffff in its header, made usearch abort the process (std::bad_alloc) at every start. Each start
 * runs in a child process (server/test/ann-start-child.ts), so a crash fails the test instead of killing
 * the runner. Now the file fails its check, is discarded with a log line, and the index is rebuilt from
 * vec0: the start is healthy and every memory is found by its own vector through the index.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { startAnnIndex, stopAnnIndex } from "./ann-registry";
import { graphFileProblem, sidecarFile } from "./ann-validate";
import { insertMemories } from "../store";

const DIM = 32;
const CHILD = path.join(process.cwd(), "server", "test", "ann-start-child.ts");
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

function unit(): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => Math.random() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** A store of 300 memories with its index saved beside it; returns the store and the graph file. */
async function savedIndex(): Promise<{ s: TempStore; annDir: string; graph: string }> {
  const s = openTempStore({ model: "test-32d", dim: DIM });
  stores.push(s);
  insertMemories(
    s.sqlite,
    Array.from({ length: 300 }, (_, i) => ({ spaceId: "personal", content: `memory ${i}` })),
    Array.from({ length: 300 }, unit),
    "test-32d",
  );
  const annDir = path.join(s.dir, "ann");
  await startAnnIndex(s.sqlite, DIM, annDir).build();
  stopAnnIndex(s.sqlite); // saves the graph, its checksum and the manifest
  s.sqlite.close();
  const graph = path.join(annDir, "personal.f16.usearch");
  assert.ok(fs.existsSync(graph) && fs.existsSync(sidecarFile(graph)));
  return { s, annDir, graph };
}

function start(s: TempStore, annDir: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", CHILD, s.file, annDir, String(DIM)], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `the start failed (status ${r.status}, signal ${r.signal}):\n${r.stderr.slice(-2000)}`);
  const result = JSON.parse(r.stdout.trim().split("\n").pop()!) as {
    state: string;
    loadedFromFile: boolean;
    size: number;
    rows: number;
    found: number;
    sources: string[];
  };
  return { ...result, stderr: r.stderr };
}

test("an intact saved index passes its check and is loaded", async () => {
  const { s, annDir, graph } = await savedIndex();
  assert.equal(graphFileProblem(graph, { dim: DIM, count: 300 }), null);
  const r = start(s, annDir);
  assert.equal(r.loadedFromFile, true);
  assert.equal(r.found, 300);
});

const corruptions: [string, (graph: string) => void, RegExp][] = [
  [
    "random bytes",
    (graph) => fs.writeFileSync(graph, crypto.randomBytes(fs.statSync(graph).size)),
    /discarded the saved index: .*personal\.f16\.usearch: .*rebuilding it from the store/,
  ],
  [
    "a header row count of 0x7fffffff",
    (graph) => {
      const fd = fs.openSync(graph, "r+");
      const b = Buffer.alloc(4);
      b.writeUInt32LE(0x7fffffff);
      fs.writeSync(fd, b, 0, 4, 0);
      fs.closeSync(fd);
    },
    /personal\.f16\.usearch: (its header says 2147483647 vectors|its checksum)/,
  ],
];

for (const [name, corrupt, log] of corruptions) {
  test(`a saved graph with ${name} is discarded and rebuilt from vec0: the start is healthy and search is right`, async () => {
    const { s, annDir, graph } = await savedIndex();
    corrupt(graph);
    assert.notEqual(graphFileProblem(graph, { dim: DIM, count: 300 }), null);
    const r = start(s, annDir);
    assert.match(r.stderr, log);
    assert.equal(r.state, "ready");
    assert.equal(r.loadedFromFile, false, "rebuilt, not loaded");
    assert.equal(r.size, 300);
    assert.deepEqual(r.sources, ["ann"]);
    assert.equal(r.found, 300, "every memory is found by its own vector");
    // The rebuilt index was saved with a fresh checksum: the next start loads it.
    assert.equal(graphFileProblem(graph, { dim: DIM, count: 300 }), null);
    assert.equal(start(s, annDir).loadedFromFile, true);
  });
}

test("a graph without a checksum file (or a changed one) is not trusted", async () => {
  const { graph } = await savedIndex();
  const b = fs.readFileSync(graph);
  b[b.length - 1] ^= 0xff; // one byte in the graph links: the layout still reads right
  fs.writeFileSync(graph, b);
  assert.match(graphFileProblem(graph, { dim: DIM, count: 300 }) ?? "", /checksum does not match/);
  fs.rmSync(sidecarFile(graph));
  assert.match(graphFileProblem(graph, { dim: DIM, count: 300 }) ?? "", /checksum file is missing/);
});
