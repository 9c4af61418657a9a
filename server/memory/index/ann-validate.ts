/**
 * A saved ANN graph is checked before usearch reads it: usearch trusts the file's counts, so a corrupt file
 * (random bytes, or a count of 0x7fffffff in its header) made it allocate without bound and abort the
 * whole process in native code, at every start. Two checks, both in JavaScript:
 * - a checksum sidecar (`<graph>.sha256.json`: size and sha256) written beside the graph when it is saved;
 *   a graph without one, or whose bytes differ, is not loaded;
 * - the layout usearch writes (index_dense.hpp, save_to_stream): a u32 row count and u32 bytes per row,
 *   the rows of f16 vectors, then a 64-byte head starting "usearch" with the present and deleted counts
 *   and the dimension. Each must agree with the manifest and the store, and fit in the file.
 * A graph that fails is discarded by the caller (ann-files.ts) and the index is rebuilt from vec0.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const HEAD_BYTES = 64;
const MAGIC = "usearch";

export interface GraphSidecar {
  size: number;
  sha256: string;
}

export function sidecarFile(graph: string): string {
  return `${graph}.sha256.json`;
}

/** sha256 of a file, read in 1 MiB pieces (a graph can be hundreds of MB). */
function sha256File(file: string): string {
  const hash = crypto.createHash("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = fs.openSync(file, "r");
  try {
    for (let n: number; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

/** Write the checksum sidecar of a graph just saved (atomically, 0600 like the graph). */
export function writeGraphChecksum(graph: string): void {
  const sidecar: GraphSidecar = { size: fs.statSync(graph).size, sha256: sha256File(graph) };
  const tmp = `${sidecarFile(graph)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(sidecar), { mode: 0o600 });
  fs.renameSync(tmp, sidecarFile(graph));
}

/**
 * Why this graph file must not be handed to usearch, or null when it may be: `count` vectors of `dim`
 * f16 components expected (from the manifest and the store).
 */
export function graphFileProblem(graph: string, expected: { dim: number; count: number }): string | null {
  let size: number;
  try {
    size = fs.statSync(graph).size;
  } catch {
    return "the file is missing";
  }
  let sidecar: GraphSidecar;
  try {
    sidecar = JSON.parse(fs.readFileSync(sidecarFile(graph), "utf8")) as GraphSidecar;
  } catch {
    return "its checksum file is missing or unreadable";
  }
  if (sidecar.size !== size) return `it is ${size} bytes, its checksum file says ${sidecar.size}`;
  const head = Buffer.alloc(8);
  const fd = fs.openSync(graph, "r");
  try {
    if (size < 8 + HEAD_BYTES || fs.readSync(fd, head, 0, 8, 0) !== 8) return "it is too short to be an index";
    const rows = head.readUInt32LE(0);
    const cols = head.readUInt32LE(4);
    if (cols !== expected.dim * 2) return `its vectors are ${cols} bytes, expected ${expected.dim * 2}`;
    if (rows < expected.count) return `it holds ${rows} vectors, expected at least ${expected.count}`;
    const headAt = 8 + rows * cols;
    if (headAt + HEAD_BYTES > size) return `its header says ${rows} vectors, more than the file's ${size} bytes hold`;
    const dense = Buffer.alloc(HEAD_BYTES);
    fs.readSync(fd, dense, 0, HEAD_BYTES, headAt);
    if (dense.toString("latin1", 0, MAGIC.length) !== MAGIC) return "its index header is not a usearch header";
    // magic (7) + version (3 × u16) + metric, scalar, key and slot kinds (4 × u8) = 17 bytes, then the counts
    const present = Number(dense.readBigUInt64LE(17));
    const deleted = Number(dense.readBigUInt64LE(25));
    const dims = Number(dense.readBigUInt64LE(33));
    if (dims !== expected.dim) return `its header says dimension ${dims}, expected ${expected.dim}`;
    if (present !== expected.count || present + deleted !== rows)
      return `its header counts (${present} present, ${deleted} deleted) do not match ${rows} rows and the manifest's ${expected.count}`;
  } finally {
    fs.closeSync(fd);
  }
  if (sha256File(graph) !== sidecar.sha256) return "its checksum does not match (the file was changed or damaged)";
  return null;
}

/**
 * Remove the saved index (manifest, graphs, checksum files) after one of its graphs failed its check, and
 * say so: the index is then rebuilt from vec0 and saved afresh.
 */
export function discardGraphs(dir: string, reason: string): void {
  console.warn(`[ann] discarded the saved index: ${reason}; rebuilding it from the store`);
  for (const f of fs.readdirSync(dir)) {
    if (f === "manifest.json" || f.endsWith(".usearch") || f.endsWith(".sha256.json"))
      fs.rmSync(path.join(dir, f), { force: true });
  }
}
