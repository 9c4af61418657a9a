import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "./config";

/**
 * Secrets at rest (provider API keys): AES-256-GCM under a key kept in its own file, `<data>/secret.key`
 * (0600, created at first start), never in the database. A copied database, or a backup of it, alone holds
 * no usable key; losing the key file means entering the provider keys again.
 */

const SEALED_PREFIX = "enc:v1:";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function secretKeyPath(): string {
  return path.join(dataDir(), "secret.key");
}

let cached: { file: string; key: Buffer } | undefined;

/** The key, read from its file, or created there (0600, exclusive create: two processes never write two keys). */
export function secretKey(): Buffer {
  const file = secretKeyPath();
  if (cached?.file === file) return cached.key;
  let key: Buffer;
  try {
    key = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, `${crypto.randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    } catch (w) {
      if ((w as NodeJS.ErrnoException).code !== "EEXIST") throw w;
    }
    key = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
  }
  if (key.length !== KEY_BYTES)
    throw new Error(`${file} does not hold a ${KEY_BYTES}-byte key (base64); move it away and re-enter provider keys`);
  cached = { file, key };
  return key;
}

export function isSealed(v: string): boolean {
  return v.startsWith(SEALED_PREFIX);
}

/** "enc:v1:" + base64(iv | tag | ciphertext). `context` (e.g. "chat.providers.openai") is bound as AAD. */
export function seal(plain: string, context: string): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const c = crypto.createCipheriv("aes-256-gcm", secretKey(), iv);
  c.setAAD(Buffer.from(context));
  const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, c.getAuthTag(), ct]).toString("base64");
}

/** The plain text, or null when it cannot be opened (another key file, or altered). */
export function open(sealed: string, context: string): string | null {
  if (!isSealed(sealed)) return null;
  const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64");
  if (raw.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const d = crypto.createDecipheriv("aes-256-gcm", secretKey(), raw.subarray(0, IV_BYTES));
    d.setAAD(Buffer.from(context));
    d.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([d.update(raw.subarray(IV_BYTES + TAG_BYTES)), d.final()]).toString("utf8");
  } catch {
    return null;
  }
}
