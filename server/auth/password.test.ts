import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_SCRYPT, hashPassword, needsRehash, parseHash, passwordProblem, verifyPassword } from "./password";

const CHEAP = { log2N: 10, r: 8, p: 1 }; // for the many-case tests; the default is checked once below

test("the default parameters are memory-hard (scrypt N=2^17, r=8: 128 MiB per hash)", async () => {
  assert.deepEqual(DEFAULT_SCRYPT, { log2N: 17, r: 8, p: 1 });
  const t0 = performance.now();
  const h = await hashPassword("correct horse battery staple");
  const ms = performance.now() - t0;
  assert.match(h, /^scrypt\$17\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  assert.equal(await verifyPassword("correct horse battery staple", h), true);
  assert.ok(ms > 20, `a default-cost hash took ${ms.toFixed(0)} ms; expected a deliberately slow KDF`);
});

test("verify accepts the password and nothing else; the hash does not contain it", async () => {
  const h = await hashPassword("hunter2-hunter2", CHEAP);
  assert.ok(!h.includes("hunter2"));
  assert.equal(await verifyPassword("hunter2-hunter2", h), true);
  for (const wrong of ["hunter2-hunter3", "Hunter2-hunter2", "hunter2-hunter2 ", "", "hunter2"])
    assert.equal(await verifyPassword(wrong, h), false, wrong);
});

test("each hash has its own salt", async () => {
  const [a, b] = await Promise.all([hashPassword("same password", CHEAP), hashPassword("same password", CHEAP)]);
  assert.notEqual(a, b);
  assert.notEqual(parseHash(a)!.salt.toString("hex"), parseHash(b)!.salt.toString("hex"));
});

test("Unicode is normalised (NFKC): the composed and decomposed é are the same password", async () => {
  const h = await hashPassword("caf\u00e9-au-lait", CHEAP);
  assert.equal(await verifyPassword("cafe\u0301-au-lait", h), true);
});

test("a malformed or tampered stored hash never verifies", async () => {
  const h = await hashPassword("a good password", CHEAP);
  for (const bad of [
    "",
    "plain",
    h.replace("scrypt$", "bcrypt$"),
    h.replace(/\$10\$/, "$40$"),
    `${h.slice(0, -4)}AAA=`,
    h.replace(/\$8\$/, "$0$"),
  ]) {
    assert.equal(await verifyPassword("a good password", bad), false, bad);
  }
});

test("needsRehash flags hashes weaker than the defaults", async () => {
  assert.equal(needsRehash(await hashPassword("x".repeat(10), CHEAP)), true);
  assert.equal(needsRehash("garbage"), true);
  assert.equal(needsRehash("scrypt$17$8$1$c2FsdA==$a2V5"), false);
});

test("password rules: 8 to 1024 characters, not blank, no NUL", () => {
  assert.match(passwordProblem("short")!, /at least 8/);
  assert.match(passwordProblem("        ")!, /blank/);
  assert.match(passwordProblem("a".repeat(1025))!, /at most 1024/);
  assert.match(passwordProblem("abcdefgh\u0000")!, /NUL/);
  assert.equal(passwordProblem("eight ch"), null);
  assert.equal(passwordProblem("🔑🔑🔑🔑🔑🔑🔑🔑"), null); // 8 characters, 32 bytes
});
