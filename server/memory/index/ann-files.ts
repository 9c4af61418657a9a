import fs from "node:fs";
import path from "node:path";
import type usearch from "usearch";
import { PARAMS } from "./ann-params";
import { discardGraphs, graphFileProblem, sidecarFile, writeGraphChecksum } from "./ann-validate";

/** The saved form of the ANN index (server/memory/index/ann-index.ts): one usearch graph file per space and a manifest. */
export type UIndex = InstanceType<typeof usearch.Index>;

export interface SpaceIndex {
  index: UIndex;
  size: number;
}

export interface Manifest {
  generation: number;
  seq?: number;
  dim: number;
  params?: string;
  spaces: Record<string, number>;
}

function graphFile(dir: string, spaceId: string): string {
  return `${path.join(dir, encodeURIComponent(spaceId))}.f16.usearch`;
}

/**
 * The saved graphs, when they fit this store: same dimension and parameters, not newer than the store, and
 * with the log position they reflect when older (so what was written since can be caught up). Else null.
 */
export function loadGraphs(
  dir: string,
  store: { dim: number; storeGeneration: number },
  newIndex: () => UIndex,
): { spaces: Map<string, SpaceIndex>; manifest: Manifest } | null {
  const manifestFile = path.join(dir, "manifest.json");
  if (!fs.existsSync(manifestFile)) return null;
  try {
    const m = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as Manifest;
    if (m.dim !== store.dim || m.params !== PARAMS || m.generation > store.storeGeneration) return null;
    if (m.generation < store.storeGeneration && typeof m.seq !== "number") return null;
    const spaces = new Map<string, SpaceIndex>();
    for (const [spaceId, size] of Object.entries(m.spaces)) {
      // Checked first: usearch aborts the process on a corrupt file (ann-validate.ts).
      const problem = graphFileProblem(graphFile(dir, spaceId), { dim: m.dim, count: size });
      if (problem) {
        discardGraphs(dir, `${graphFile(dir, spaceId)}: ${problem}`);
        return null;
      }
      const index = newIndex();
      index.load(graphFile(dir, spaceId));
      if (index.size() !== size) return null;
      spaces.set(spaceId, { index, size });
    }
    return { spaces, manifest: m };
  } catch {
    return null;
  }
}

/** Save every non-empty graph (0600: vectors of private text) and then the manifest, atomically. */
export function saveGraphs(
  dir: string,
  graphs: Map<string, SpaceIndex>,
  header: { generation: number; seq: number; dim: number },
): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const spaces: Record<string, number> = {};
  for (const [spaceId, s] of graphs) {
    if (s.size === 0) continue;
    s.index.save(graphFile(dir, spaceId));
    try {
      fs.chmodSync(graphFile(dir, spaceId), 0o600);
    } catch {
      /* a filesystem without modes */
    }
    writeGraphChecksum(graphFile(dir, spaceId));
    spaces[spaceId] = s.size;
  }
  writeManifest(dir, { ...header, params: PARAMS, spaces });
  removeUnlisted(dir, spaces);
}

function writeManifest(dir: string, m: Manifest): void {
  const tmp = path.join(dir, "manifest.json.tmp");
  fs.writeFileSync(tmp, JSON.stringify(m), { mode: 0o600 });
  fs.renameSync(tmp, path.join(dir, "manifest.json"));
}

/**
 * Delete graph files (and their checksums) the manifest no longer lists: a space emptied or deleted (a
 * removed person's) must not leave its vectors on disk. After the manifest is written, so a crash in between
 * leaves only unlisted files, which the next save deletes.
 */
function removeUnlisted(dir: string, spaces: Record<string, number>): void {
  const keep = new Set(Object.keys(spaces).map((id) => path.basename(graphFile(dir, id))));
  for (const f of fs.readdirSync(dir)) {
    const graph = f.endsWith(".sha256.json") ? f.slice(0, -".sha256.json".length) : f;
    if (graph.endsWith(".f16.usearch") && !keep.has(graph)) fs.rmSync(path.join(dir, f), { force: true });
  }
}

/**
 * Drop saved graphs of spaces that are gone from the store (a person removed, and the process stopped before
 * the index was saved again): the manifest loses them first, then their files go. Called at start.
 */
export function dropGraphs(dir: string, manifest: Manifest, spaceIds: string[]): Manifest {
  const spaces = { ...manifest.spaces };
  for (const id of spaceIds) delete spaces[id];
  const next = { ...manifest, spaces };
  writeManifest(dir, next);
  for (const id of spaceIds) {
    fs.rmSync(graphFile(dir, id), { force: true });
    fs.rmSync(sidecarFile(graphFile(dir, id)), { force: true });
  }
  return next;
}

/**
 * Drop the saved graphs of these spaces now (a person removed while the index runs, issue 43): their vectors
 * and keys leave the disk at once instead of at the next save. A missing folder or manifest is no error.
 */
export function dropSavedGraphs(dir: string, spaceIds: string[]): void {
  if (!spaceIds.length || !fs.existsSync(dir)) return;
  let manifest: Manifest | null = null;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;
  } catch {
    manifest = null;
  }
  if (manifest?.spaces) {
    dropGraphs(dir, manifest, spaceIds);
    return;
  }
  for (const id of spaceIds) {
    fs.rmSync(graphFile(dir, id), { force: true });
    fs.rmSync(sidecarFile(graphFile(dir, id)), { force: true });
  }
}
