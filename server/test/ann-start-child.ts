/**
 * TEST HARNESS (server/memory/index/ann-corrupt.test.ts): a separate process that starts the ANN index of a store
 * the way the app does (startAnnIndex with the saved-index folder), waits for it to be ready, then asks it
 * for each of the given memories' own vectors and prints one JSON line. A saved index that crashes usearch
 * kills this process, not the test runner.
 * Usage: node --import tsx ann-start-child.ts <memory.db> <ann dir> <dim>
 */
import { openDb } from "../db";
import { startAnnIndex } from "../memory/index/ann-registry";
import { vectorSearchWithSource } from "../memory/retrieval/vector-search";

const [file, dir, dimArg] = process.argv.slice(2);
const dim = Number(dimArg);
const { sqlite } = openDb(file!);
const ann = startAnnIndex(sqlite, dim, dir!);
await ann.build();
await ann.settled();
const rows = sqlite.prepare("SELECT rowid AS rid, space_id AS spaceId, embedding FROM memory_vec").all() as {
  rid: number;
  spaceId: string;
  embedding: Buffer;
}[];
let found = 0;
const sources = new Set<string>();
for (const row of rows) {
  const q = new Float32Array(
    row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength),
  );
  const { hits, source } = vectorSearchWithSource(sqlite, row.spaceId, q, 1);
  sources.add(source);
  if (hits[0]?.rid === row.rid) found++;
}
console.log(
  JSON.stringify({
    state: ann.state,
    loadedFromFile: ann.loadedFromFile,
    size: ann.size(),
    rows: rows.length,
    found,
    sources: [...sources],
  }),
);
ann.close();
sqlite.close();
