import fs from "node:fs";
import path from "node:path";
import type usearch from "usearch";
import { PARAMS } from "./ann-params";
import { discardGraphs, graphFileProblem, writeGraphChecksum } from "./ann-validate";

/** The saved form of the ANN index (server/memory/index/ann-index.ts): one usearch graph file per space and a manifest. */
export type UIndex = InstanceType<typeof usearch.Index>;

export interface SpaceIndex {
  index: UIndex;
  size: number;
}

interface Manifest {
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
  const tmp = path.join(dir, "manifest.json.tmp");
  fs.writeFileSync(tmp, JSON.stringify({ ...header, params: PARAMS, spaces }), { mode: 0o600 });
  fs.renameSync(tmp, path.join(dir, "manifest.json"));
}
