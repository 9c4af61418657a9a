import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { modelsDir } from "../core/config";

export const NOMIC_GGUF_URL =
  "https://huggingface.co/nomic-ai/nomic-embed-text-v1.5-GGUF/resolve/main/nomic-embed-text-v1.5.Q8_0.gguf";
export const NOMIC_GGUF_FILE = "nomic-embed-text-v1.5.Q8_0.gguf";

/** A model file Memo can download, with the checksum every download is verified against. */
export interface PinnedModel {
  name: string;
  file: string;
  url: string;
  sha256: string;
  bytes: number;
  licence: string;
}

/**
 * The default embedding model. sha256 and size are those Hugging Face publishes for this file (its LFS
 * object; repository commit 0188c9bf409793f810680a5a431e7b899c46104c).
 */
export const NOMIC_GGUF: PinnedModel = {
  name: "nomic-embed-text-v1.5 (Q8_0)",
  file: NOMIC_GGUF_FILE,
  url: NOMIC_GGUF_URL,
  sha256: "3e24342164b3d94991ba9692fdc0dd08e3fd7362e0aacc396a9a5c54a544c3b7",
  bytes: 146_146_432,
  licence: "Apache-2.0",
};

/**
 * The default local chat model (`npm run models:pull -- --chat`): Qwen2.5-1.5B-Instruct, Q4_K_M. Small
 * enough for a CPU, permissively licensed. sha256 and size as published by Hugging Face for this file
 * (Qwen/Qwen2.5-1.5B-Instruct-GGUF, commit 91cad51170dc346986eccefdc2dd33a9da36ead9).
 */
export const CHAT_GGUF: PinnedModel = {
  name: "Qwen2.5-1.5B-Instruct (Q4_K_M)",
  file: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
  url: "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf",
  sha256: "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
  bytes: 1_117_320_736,
  licence: "Apache-2.0",
};

/** Where chat GGUFs live (the local provider picks the first one there when none is configured). */
export function chatModelsDir(): string {
  return path.join(modelsDir(), "chat");
}

/** Whether a nomic-embed-text-v1.5 GGUF is in data/models/. */
export function nomicGgufPresent(dir = modelsDir()): boolean {
  return fs.existsSync(dir) && fs.readdirSync(dir).some((f) => /^nomic-embed-text-v1\.5.*\.gguf$/i.test(f));
}

export type EmbeddingModelChoice =
  | { kind: "gguf"; path: string; reason: string }
  | { kind: "use-lite"; reason: string };

/**
 * Which embedding model to serve: MEMO_EMBED_MODEL (a GGUF path), else a nomic GGUF in data/models/,
 * else the bundled Universal Sentence Encoder lite (offline fallback, said so in logs and UI).
 */
export function chooseEmbeddingModel(): EmbeddingModelChoice {
  const explicit = process.env.MEMO_EMBED_MODEL;
  if (explicit) {
    if (explicit === "use-lite") return { kind: "use-lite", reason: "MEMO_EMBED_MODEL=use-lite" };
    if (fs.existsSync(explicit)) return { kind: "gguf", path: path.resolve(explicit), reason: "MEMO_EMBED_MODEL" };
    return {
      kind: "use-lite",
      reason: `MEMO_EMBED_MODEL points at ${explicit}, which does not exist; using the bundled offline model`,
    };
  }
  const dir = modelsDir();
  const found = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => /^nomic-embed-text-v1\.5.*\.gguf$/i.test(f))
        .sort((a, b) => rank(a) - rank(b))
    : [];
  if (found[0]) return { kind: "gguf", path: path.join(dir, found[0]), reason: `found in ${dir}` };
  return {
    kind: "use-lite",
    reason: `no nomic-embed-text-v1.5 GGUF in ${dir} (run \`npm run models:pull\` when online); using the bundled offline model`,
  };
}

function rank(file: string): number {
  if (/q8_0/i.test(file)) return 0;
  if (/f16/i.test(file)) return 1;
  return 2;
}

/** Task prefixes of a model family: nomic-embed-text needs them, USE-lite takes none. */
export function prefixesFor(modelId: string): { query: string; document: string } {
  if (/nomic-embed-text/i.test(modelId)) return { query: "search_query: ", document: "search_document: " };
  return { query: "", document: "" };
}

/**
 * Threads for the embedding engine: MEMO_EMBED_THREADS, else all cores but one (at least 1). llama.cpp's
 * threads spin-wait; given every core they fight the app for CPU. Measured on 2 cores with the
 * nomic-embed-text-v1.5 shape (`npm run bench:embed`): node-llama-cpp with 2 threads answered queries
 * ~11× slower than with 1, while with 1 thread it matched the native llama-server.
 */
export function embedThreads(): number {
  const explicit = Number(process.env.MEMO_EMBED_THREADS ?? 0);
  if (Number.isInteger(explicit) && explicit > 0) return explicit;
  return Math.max(1, os.availableParallelism() - 1);
}

/** Native llama-server binary: MEMO_LLAMA_SERVER, else `llama-server` on PATH, else the optional local build. */
export function findLlamaServer(): string | undefined {
  const explicit = process.env.MEMO_LLAMA_SERVER;
  if (explicit) return fs.existsSync(explicit) ? explicit : undefined;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "llama-server");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  const local = path.join(
    /* turbopackIgnore: true */ process.cwd(),
    "data",
    "llama.cpp",
    "build",
    "bin",
    "llama-server",
  );
  return fs.existsSync(local) ? local : undefined;
}
