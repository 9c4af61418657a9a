import crypto from "node:crypto";

/**
 * Owner passwords, hashed with scrypt (node:crypto; memory-hard). Defaults follow OWASP's scrypt
 * recommendation: N = 2^17, r = 8, p = 1 — 128 MiB and ~0.3 s per hash on a small CPU, which is what makes
 * each guess against a stolen database expensive. The parameters live in the encoded hash, so they can be
 * raised later without breaking existing hashes:
 *
 *   scrypt$<log2 N>$<r>$<p>$<salt, base64>$<hash, base64>
 */

export interface ScryptParams {
  log2N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT: ScryptParams = { log2N: 17, r: 8, p: 1 };
export const MIN_PASSWORD_CHARS = 8;
export const MAX_PASSWORD_CHARS = 1024;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** Why a new password is not acceptable, or null. Length is the rule (NIST 800-63B); no composition rules. */
export function passwordProblem(pw: string): string | null {
  if (typeof pw !== "string") return "the password must be text";
  if (pw.includes("\u0000")) return "the password must not contain NUL characters";
  const n = [...pw.normalize("NFKC")].length;
  if (pw.trim().length === 0) return "the password must not be blank";
  if (n < MIN_PASSWORD_CHARS) return `the password must have at least ${MIN_PASSWORD_CHARS} characters`;
  if (n > MAX_PASSWORD_CHARS) return `the password must have at most ${MAX_PASSWORD_CHARS} characters`;
  return null;
}

function scrypt(pw: string, salt: Buffer, p: ScryptParams): Promise<Buffer> {
  const N = 2 ** p.log2N;
  return new Promise((resolve, reject) =>
    // maxmem: scrypt needs 128·N·r bytes; node's default cap (32 MiB) is below the recommended cost.
    crypto.scrypt(
      pw.normalize("NFKC"),
      salt,
      KEY_BYTES,
      { N, r: p.r, p: p.p, maxmem: 2 * 128 * N * p.r + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

export async function hashPassword(pw: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await scrypt(pw, salt, params);
  return ["scrypt", params.log2N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export function parseHash(encoded: string): (ScryptParams & { salt: Buffer; key: Buffer }) | null {
  const m = /^scrypt\$(\d{1,2})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(encoded);
  if (!m) return null;
  const [log2N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (log2N < 10 || log2N > 22 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  return { log2N, r, p, salt: Buffer.from(m[4]!, "base64"), key: Buffer.from(m[5]!, "base64") };
}

/** Constant-time comparison of the derived key; a malformed stored hash never verifies. */
export async function verifyPassword(pw: string, encoded: string): Promise<boolean> {
  const h = parseHash(encoded);
  if (!h || typeof pw !== "string" || pw.length > MAX_PASSWORD_CHARS * 4) return false;
  const key = await scrypt(pw, h.salt, h);
  return key.length === h.key.length && crypto.timingSafeEqual(key, h.key);
}

/** A hash made with weaker parameters than today's defaults (re-hash it at the next successful sign-in). */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT): boolean {
  const h = parseHash(encoded);
  return !h || h.log2N < params.log2N || h.r < params.r || h.p < params.p;
}
