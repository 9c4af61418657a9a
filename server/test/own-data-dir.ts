/**
 * TEST SETUP, preloaded into every test file's process by scripts/test-unit.ts (`--import`): a test file that
 * does not choose a data folder gets a fresh one of its own (MEMO_DATA_DIR under os.tmpdir(), removed when the
 * file's process exits) instead of the checkout's ./data, so files running at the same time never share a
 * store, a secret.key or a models folder. A file that sets MEMO_DATA_DIR itself is unaffected.
 *
 * Only in a test file's process (node:test marks those with NODE_TEST_CONTEXT): the runner's own process
 * would otherwise hand one folder to every file through the environment.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

if (process.env.NODE_TEST_CONTEXT && !process.env.MEMO_DATA_DIR) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-test-data-"));
  process.env.MEMO_DATA_DIR = dir;
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
}
