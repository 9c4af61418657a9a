/**
 * `npm run models:pull`: download nomic-embed-text-v1.5 (GGUF, Q8_0, ~146 MB) into data/models/, or with
 * `--chat` the default local chat model (Qwen2.5-1.5B-Instruct Q4_K_M, ~1.1 GB) into data/models/chat/.
 * The download survives slow and dropped connections (stall timeout, resume with Range, retries; the
 * logic is server/embedder/download.ts) and is verified by sha256 before it is put in place.
 *   --chat          the chat model instead of the embedding model
 *   --if-missing    do nothing when such a GGUF is already there
 *   --url URL       another source (a mirror of the same file); MEMO_MODEL_URL does the same for the embedding model
 *   --sha256 HEX    the expected sha256 (default: the pinned one of the default file); MEMO_MODEL_SHA256 likewise
 * Offline it fails within seconds with a clear message; Memo keeps using the bundled model.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { modelsDir } from "../server/core/config";
import { DownloadError, downloadModel, type DownloadProgress } from "../server/embedder/download";
import { CHAT_GGUF, chatModelsDir, NOMIC_GGUF, nomicGgufPresent } from "../server/embedder/models";

const { values } = parseArgs({
  options: {
    chat: { type: "boolean", default: false },
    "if-missing": { type: "boolean", default: false },
    url: { type: "string" },
    sha256: { type: "string" },
  },
});

const chat = values.chat;
const pinned = chat ? CHAT_GGUF : NOMIC_GGUF;
const url = values.url ?? (chat ? undefined : process.env.MEMO_MODEL_URL) ?? pinned.url;
const sha256 = (values.sha256 ?? (chat ? undefined : process.env.MEMO_MODEL_SHA256) ?? pinned.sha256)
  .trim()
  .toLowerCase();
const dir = chat ? chatModelsDir() : modelsDir();
// A mirror keeps the file's own name when it has one (the embedder looks for nomic-embed-text-v1.5*.gguf).
const urlName = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
const file = /\.gguf$/i.test(urlName) ? urlName : pinned.file;
const dest = path.join(dir, file);

function fail(msg: string): never {
  console.error(`models:pull: ${msg}`);
  if (!chat) console.error("Memo keeps working with the bundled offline model (Universal Sentence Encoder lite).");
  process.exit(1);
}

if (!/^[0-9a-f]{64}$/.test(sha256)) fail(`--sha256 must be 64 hex digits (got '${sha256}')`);

const mb = (n: number) => (n / 1048576).toFixed(1);
function clock(secs: number | null): string {
  if (secs === null || !Number.isFinite(secs)) return "--:--";
  const s = Math.round(secs);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

function bar(p: DownloadProgress): string {
  const width = 30;
  const frac = p.total ? Math.min(1, p.done / p.total) : 0;
  return `[${"#".repeat(Math.round(frac * width)).padEnd(width, ".")}] ${(frac * 100).toFixed(1).padStart(5)}% ${mb(p.done)}/${p.total ? mb(p.total) : "?"} MB  ${mb(p.bytesPerSec)} MB/s  ETA ${clock(p.etaSec)}`;
}

const tty = Boolean(process.stdout.isTTY);
let lastDecile = -1;
let lastPhase = "";
function progress(p: DownloadProgress): void {
  if (p.phase === "verifying") {
    if (tty) process.stdout.write("\n");
    console.log(`models:pull: verifying sha256 of ${mb(p.done)} MB…`);
    return;
  }
  if (p.phase === "connecting") {
    if (lastPhase !== "connecting" && p.resumedFrom > 0)
      console.log(
        `models:pull: resuming at ${mb(p.resumedFrom)} MB (kept from an earlier run or a dropped connection)`,
      );
    lastPhase = p.phase;
    return;
  }
  lastPhase = p.phase;
  if (tty) {
    process.stdout.write(`\r${bar(p)}`);
    return;
  }
  // Without a terminal (logs, CI): one line per 10%.
  const decile = p.total ? Math.floor((p.done / p.total) * 10) : -1;
  if (decile > lastDecile) {
    lastDecile = decile;
    console.log(bar(p));
  }
}

async function main() {
  if (values["if-missing"]) {
    const present = chat
      ? fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.toLowerCase().endsWith(".gguf"))
      : nomicGgufPresent(dir);
    if (present) {
      console.log(`models:pull: a ${chat ? "chat" : "nomic-embed-text-v1.5"} GGUF is already in ${dir}`);
      return;
    }
  }
  if (fs.existsSync(dest)) {
    console.log(`models:pull: ${dest} is already there`);
    return;
  }
  console.log(`models:pull: ${pinned.name} (${pinned.licence}) from ${url}\n  → ${dest}\n  expected sha256 ${sha256}`);
  try {
    const r = await downloadModel({
      url,
      dest,
      sha256,
      // The pinned size only applies to the pinned file; a --sha256 of another file brings its own size.
      expectedBytes: sha256 === pinned.sha256 ? pinned.bytes : null,
      onProgress: progress,
      log: (m) => {
        if (tty) process.stdout.write("\n");
        console.log(`models:pull: ${m}`);
      },
    });
    console.log(
      `models:pull: sha256 ok (${r.sha256}); saved ${r.path} (${mb(r.bytes)} MB, ${r.attempts} attempt${r.attempts > 1 ? "s" : ""}).`,
    );
    console.log(
      chat
        ? "Restart Memo: with no other chat provider configured it now chats through this model on the local llama.cpp server."
        : "Restart Memo to use it (a running Memo that started the download itself switches on its own); stored memories are re-indexed in the background.",
    );
  } catch (e) {
    if (tty) process.stdout.write("\n");
    if (e instanceof DownloadError) {
      if (e.kind === "offline")
        fail(
          `${e.message}. Copy the GGUF into ${dir} or ${chat ? "set MEMO_CHAT_MODEL" : "set MEMO_EMBED_MODEL"} to its path.`,
        );
      fail(e.message);
    }
    fail(`unexpected error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

void main();
