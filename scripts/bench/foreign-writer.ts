/**
 * Child process of `npm run bench`: another process writing the store, as the MCP stdio server or a
 * second app would. Opens the store file, adds `--n` memories one transaction each (through the store's
 * own insert path), prints their ids as JSON and exits.
 */
import { parseArgs } from "node:util";
import { openDb } from "../../server/db";
import { insertMemories } from "../../server/memory/store";
import { gauss, rng } from "./synthetic";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    space: { type: "string" },
    n: { type: "string", default: "100" },
    dim: { type: "string" },
    model: { type: "string" },
  },
});
const opened = openDb(values.db!);
const dim = Number(values.dim);
const r = rng(99);
const ids: string[] = [];
for (let i = 0; i < Number(values.n); i++) {
  const v = Float32Array.from({ length: dim }, () => gauss(r));
  let n = 0;
  for (const x of v) n += x * x;
  ids.push(
    ...insertMemories(
      opened.sqlite,
      [{ spaceId: values.space!, content: `written by another process ${i}` }],
      [v.map((x) => x / Math.sqrt(n))],
      values.model!,
    ),
  );
}
opened.sqlite.close();
process.stdout.write(`${JSON.stringify(ids)}\n`);
