/**
 * The model `npm run eval:retrieval` evaluates (`--model`) and the fitted confidence block of
 * server/memory/retrieval/confidence-models.ts that `--fit` rewrites for it.
 */
import fs from "node:fs";
import path from "node:path";
import type { EmbeddingModelChoice } from "../../server/embedder/models";
import { FEATURES } from "../../server/memory/retrieval/confidence-features";
import { USE_LITE, USE_LITE_CHOICE } from "../../server/test/retrieval-eval/life-harness";

/** `--model`: the bundled USE-lite (default, or "use-lite"), or a GGUF file served through llama.cpp. */
export function modelChoice(arg: string | undefined): EmbeddingModelChoice {
  if (!arg || arg === "use-lite") return USE_LITE_CHOICE;
  if (!/\.gguf$/i.test(arg) || !fs.existsSync(arg))
    throw new Error(`--model ${arg}: not a GGUF file here (download one with \`npm run models:pull\` when online)`);
  return { kind: "gguf", path: path.resolve(arg), reason: "--model" };
}

const MODELS_FILE = path.join(process.cwd(), "server/memory/retrieval/confidence-models.ts");

/** The fitted block of confidence-models.ts that --fit rewrites for this model (checked before the run). */
export function fittedBlockFor(choice: EmbeddingModelChoice): string {
  const id = choice.kind === "use-lite" ? USE_LITE : path.basename(choice.path);
  const name = /universal-sentence-encoder/i.test(id) ? "USE_LITE" : /nomic-embed-text/i.test(id) ? "NOMIC" : null;
  if (!name || !fs.readFileSync(MODELS_FILE, "utf8").includes(`// BEGIN FITTED ${name}`))
    throw new Error(`--fit: confidence-models.ts has no fitted block for ${id}; add one (and its match) first`);
  return name;
}

/** Rewrite that block with the fitted model (`--fit`). */
export function writeFitted(
  name: string,
  bias: number,
  weights: Record<string, number>,
  range: [number, number],
  turnShare: number,
) {
  const src = fs.readFileSync(MODELS_FILE, "utf8");
  const w = FEATURES.map((f) => `${f}: ${weights[f]}`).join(", ");
  const head = src.match(new RegExp(`// BEGIN FITTED ${name}[^\\n]*`))![0];
  const block = `${head}\nconst ${name}: ConfidenceModel = {\n  bias: ${bias},\n  weights: { ${w} },\n  similarityRange: [${range[0]}, ${range[1]}],\n  turnShare: ${turnShare},\n};\n// END FITTED ${name}`;
  fs.writeFileSync(
    MODELS_FILE,
    src.replace(new RegExp(`// BEGIN FITTED ${name}[\\s\\S]*?// END FITTED ${name}`), block),
  );
}
