/**
 * `node --import tsx scripts/fit-spectrum.ts [--out scripts/bench/use-lite-spectrum.json]`
 *
 * Fits the spectrum that `npm run bench`'s second vector set follows (scripts/bench/spectrum.ts): embeds
 * text the repo generates — the retrieval test set's exchanges and questions, and generated English
 * prose — with the bundled Universal Sentence Encoder lite, and writes the mean length and covariance
 * eigenvalues of those vectors as JSON. The committed file is the output of this command.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { loadUseLite } from "../server/embedder/engines/use-lite";
import { toUnitVector } from "../server/embedder/client";
import { englishSentence } from "../server/test/english-text";
import { generateDataset } from "../server/test/retrieval-eval/dataset";
import { createRng } from "../server/test/retrieval-eval/rng";
import { effectiveDimension, fitSpectrum } from "./bench/spectrum";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: "scripts/bench/use-lite-spectrum.json" },
    prose: { type: "string", default: "1200" },
  },
});

const ds = generateDataset();
const texts = [...ds.conversations.flatMap((c) => c.memories.map((m) => m.text)), ...ds.questions.map((q) => q.text)];
const rng = createRng("fit-spectrum");
for (let i = 0; i < Number(values.prose); i++)
  texts.push(Array.from({ length: rng.int(1, 4) }, () => englishSentence(rng)).join(" "));
const engine = await loadUseLite();
const vectors: Float32Array[] = [];
for (let i = 0; i < texts.length; i += 16) {
  const raw = await engine.embed(texts.slice(i, i + 16));
  vectors.push(...raw.map((v) => toUnitVector(v, engine.dim)));
  process.stderr.write(`\rembedded ${vectors.length}/${texts.length}`);
}
process.stderr.write("\nfitting…\n");
await engine.close();
const spec = fitSpectrum(
  vectors,
  `${engine.modelId}: ${texts.length} texts (retrieval test set exchanges and questions, generated prose)`,
);
const out = {
  ...spec,
  meanNormSq: +spec.meanNormSq.toFixed(6),
  eigenvalues: spec.eigenvalues.map((x) => +x.toPrecision(5)),
};
fs.writeFileSync(values.out!, `${JSON.stringify(out)}\n`);
console.log(
  JSON.stringify({
    out: values.out,
    n: spec.n,
    dim: spec.dim,
    meanNormSq: out.meanNormSq,
    effectiveDimension: +effectiveDimension(spec.eigenvalues).toFixed(1),
    top10: out.eigenvalues.slice(0, 10),
  }),
);
