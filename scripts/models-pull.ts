/**
 * `npm run models:pull`: download nomic-embed-text-v1.5 (GGUF, Q8_0, ~140 MB) into data/models/ with a
 * progress bar. Offline it fails fast with a clear message; the app then keeps using the bundled model.
 *   --if-missing   do nothing when a nomic GGUF is already there
 *   --url URL      another source (a mirror); MEMO_MODEL_URL does the same
 */
import dns from "node:dns/promises";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { modelsDir } from "../server/config";
import { NOMIC_GGUF_FILE, NOMIC_GGUF_URL } from "../server/embedder/models";

const { values } = parseArgs({ options: { "if-missing": { type: "boolean", default: false }, url: { type: "string" } } });
const url = values.url ?? process.env.MEMO_MODEL_URL ?? NOMIC_GGUF_URL;
const dir = modelsDir();
const dest = path.join(dir, NOMIC_GGUF_FILE);

function fail(msg: string): never {
  console.error(`models:pull: ${msg}`);
  console.error("Memo keeps working with the bundled offline model (Universal Sentence Encoder lite).");
  process.exit(1);
}

function bar(done: number, total: number, startedAt: number): string {
  const width = 30;
  const frac = total ? Math.min(1, done / total) : 0;
  const mb = (n: number) => (n / 1048576).toFixed(1);
  const rate = done / Math.max(0.001, (Date.now() - startedAt) / 1000);
  return `[${"#".repeat(Math.round(frac * width)).padEnd(width, ".")}] ${(frac * 100).toFixed(1).padStart(5)}% ${mb(done)}/${total ? mb(total) : "?"} MB ${mb(rate)} MB/s`;
}

async function main() {
  if (values["if-missing"] && fs.existsSync(dir) && fs.readdirSync(dir).some((f) => /^nomic-embed-text-v1\.5.*\.gguf$/i.test(f))) {
    console.log(`models:pull: a nomic-embed-text-v1.5 GGUF is already in ${dir}`);
    return;
  }
  const host = new URL(url).hostname;
  try {
    await Promise.race([dns.lookup(host), new Promise((_, rej) => setTimeout(() => rej(new Error("DNS timeout")), 3000))]);
  } catch (e) {
    fail(`cannot reach ${host} (${e instanceof Error ? e.message : String(e)}): this machine looks offline. Copy a nomic-embed-text-v1.5 GGUF into ${dir} or set MEMO_EMBED_MODEL to its path.`);
  }
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(15_000), redirect: "follow" });
  } catch (e) {
    fail(`download failed to start: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!res.ok || !res.body) fail(`download failed: HTTP ${res.status} from ${url}`);
  const total = Number(res.headers.get("content-length") ?? 0);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const part = `${dest}.part`;
  const out = fs.createWriteStream(part, { mode: 0o600 });
  const startedAt = Date.now();
  let done = 0;
  let last = 0;
  const tty = process.stdout.isTTY;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    done += chunk.byteLength;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
    if (Date.now() - last > 250) {
      last = Date.now();
      if (tty) process.stdout.write(`\r${bar(done, total, startedAt)}`);
      else if (Math.round((done / (total || 1)) * 100) % 10 === 0) console.log(bar(done, total, startedAt));
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  if (total && done !== total) fail(`download incomplete (${done} of ${total} bytes)`);
  const head = Buffer.alloc(4);
  const fd = fs.openSync(part, "r");
  fs.readSync(fd, head, 0, 4, 0);
  fs.closeSync(fd);
  if (head.toString("ascii") !== "GGUF") fail("the downloaded file is not a GGUF model");
  fs.renameSync(part, dest);
  if (tty) process.stdout.write(`\r${bar(done, total || done, startedAt)}\n`);
  console.log(`models:pull: saved ${dest}. Restart Memo to use it. A store that already holds memories of another model must be re-indexed for it (see README).`);
}

void main();
