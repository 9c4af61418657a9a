/**
 * Write a synthetic nomic-bert embedding GGUF with seeded random weights (see server/test/gguf/write-gguf.ts).
 *
 *   node --import tsx scripts/make-test-gguf.ts <out.gguf> [--full] [--dtype f32|f16|q8_0] [--seed N]
 *        [--hidden N --layers N --heads N --ffn N --vocab N --ctx N]
 *
 * Default: the tiny test model (64 hidden, 1 layer, ~480 tokens, f32, ~400 KB). --full: the shape of
 * nomic-embed-text-v1.5 (768 hidden, 12 layers, 12 heads, ffn 3072, 30522 tokens; f16 unless --dtype),
 * for timing the real model's cost without its weights. Name files nomic-embed-text-v1.5-test*.gguf so
 * the app applies nomic's task prefixes; the vectors mean nothing.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { NOMIC_V15_SHAPE, writeNomicGguf, writeTinyNomicGguf, type TensorDtype } from "../server/test/gguf/write-gguf";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    full: { type: "boolean", default: false },
    dtype: { type: "string" },
    seed: { type: "string" },
    hidden: { type: "string" },
    layers: { type: "string" },
    heads: { type: "string" },
    ffn: { type: "string" },
    vocab: { type: "string" },
    ctx: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

const out = positionals[0];
if (values.help || !out || positionals.length > 1) {
  console.error(
    "usage: node --import tsx scripts/make-test-gguf.ts <out.gguf> [--full] [--dtype f32|f16|q8_0] [--seed N]\n" +
      "       [--hidden N --layers N --heads N --ffn N --vocab N --ctx N]",
  );
  process.exit(values.help ? 0 : 2);
}
const dtype = values.dtype as TensorDtype | undefined;
if (dtype && !["f32", "f16", "q8_0"].includes(dtype)) {
  console.error(`--dtype must be f32, f16 or q8_0, not ${dtype}`);
  process.exit(2);
}
const int = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`--${name} must be a positive integer`);
    process.exit(2);
  }
  return n;
};
const shape = {
  hidden: int("hidden", values.hidden),
  layers: int("layers", values.layers),
  heads: int("heads", values.heads),
  ffn: int("ffn", values.ffn),
  vocab: int("vocab", values.vocab),
  contextLength: int("ctx", values.ctx),
};
const defined = Object.fromEntries(Object.entries(shape).filter(([, v]) => v !== undefined));
const seed = int("seed", values.seed) ?? 1;

if (!/^nomic-embed-text-v1\.5/i.test(path.basename(out))) {
  console.error(
    `note: ${path.basename(out)} does not start with nomic-embed-text-v1.5, so the app will not use nomic prefixes`,
  );
}
const t0 = performance.now();
const info = values.full
  ? writeNomicGguf(out, { ...NOMIC_V15_SHAPE, dtype: dtype ?? "f16", seed, ...defined })
  : writeTinyNomicGguf(out, { dtype: dtype ?? "f32", seed, ...defined });
const { vocab, ...rest } = info;
console.log(
  JSON.stringify({ ...rest, vocabSize: vocab.length, seconds: Number(((performance.now() - t0) / 1000).toFixed(2)) }),
);
