/**
 * An import's body is received to a file as it streams in (issue 55): what arrives is what is written, an
 * owner-only file; past the cap (declared, or counted when the length is not declared) a 413 naming the
 * setting, and no partial file is left.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { ServiceError } from "../core/errors";
import { receiveToFile } from "./receive-file";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-receive-"));

/** A body of `n` bytes sent in 64 KB pieces, with no declared length. */
function streamed(n: number): Request {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= n) return c.close();
      const k = Math.min(65536, n - sent);
      c.enqueue(new Uint8Array(k).fill(0x61 + ((sent / 65536) % 26)));
      sent += k;
    },
  });
  return new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
}

test("the body lands in the file as sent, owner-only", async () => {
  const file = path.join(dir, "imports", "a.json");
  const n = 3 * 1024 * 1024 + 7;
  assert.equal(await receiveToFile(streamed(n), file, 4 * 1024 * 1024), n);
  const got = fs.readFileSync(file);
  assert.equal(got.length, n);
  assert.equal(got[0], 0x61);
  assert.equal(got[65536], 0x62);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

test("past the cap: a 413 naming MEMO_IMPORT_MAX_MB, and nothing left on disk", async () => {
  const counted = path.join(dir, "b.json");
  await assert.rejects(
    receiveToFile(streamed(3 * 1024 * 1024), counted, 1024 * 1024),
    (e) => e instanceof ServiceError && e.status === 413 && /larger than 1 MB \(MEMO_IMPORT_MAX_MB/.test(e.message),
  );
  assert.ok(!fs.existsSync(counted));
  const declared = new Request("http://x/", {
    method: "POST",
    body: "x".repeat(10),
    headers: { "content-length": String(5 * 1024 * 1024) },
  });
  await assert.rejects(receiveToFile(declared, path.join(dir, "c.json"), 1024 * 1024), /larger than 1 MB/);
  assert.ok(!fs.existsSync(path.join(dir, "c.json")));
});
