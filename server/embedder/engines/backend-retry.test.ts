import assert from "node:assert/strict";
import { test } from "node:test";
import { loadWhenBackendReady } from "./backend-retry";

const notYet = () =>
  new Error(
    "Backend 'wasm' has not yet been initialized. Make sure to await tf.ready() or await tf.setBackend() before calling other methods",
  );

test("a load that meets TF.js's backend still initialising is tried again, and succeeds once it is ready", async () => {
  let calls = 0;
  const model = await loadWhenBackendReady(
    async () => {
      calls++;
      if (calls < 3) throw notYet();
      return "model";
    },
    { waitMs: 1 },
  );
  assert.equal(model, "model");
  assert.equal(calls, 3);
});

test("any other load error is thrown at once; the backend's 'not yet' only a few times", async () => {
  let calls = 0;
  await assert.rejects(
    loadWhenBackendReady(async () => {
      calls++;
      throw new Error("model file is corrupt");
    }),
    /corrupt/,
  );
  assert.equal(calls, 1);
  calls = 0;
  await assert.rejects(
    loadWhenBackendReady(
      async () => {
        calls++;
        throw notYet();
      },
      { attempts: 4, waitMs: 1 },
    ),
    /not yet been initialized/,
  );
  assert.equal(calls, 4);
});
