/**
 * TF.js initialises its wasm backend asynchronously; under a heavily loaded machine the model's weights were
 * once decoded while that was still pending ("Backend 'wasm' has not yet been initialized", seen in a CI run
 * with the unit and e2e tests side by side), and the whole embedder failed to start. That error is TF.js
 * saying "not yet": the load is tried again after a short wait, a few times; any other error is thrown at once.
 */
const NOT_YET = /has not yet been initialized/;

export async function loadWhenBackendReady<T>(
  load: () => Promise<T>,
  opts: { attempts?: number; waitMs?: number } = {},
): Promise<T> {
  const attempts = opts.attempts ?? 6;
  const waitMs = opts.waitMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    try {
      return await load();
    } catch (e) {
      if (attempt >= attempts || !NOT_YET.test(e instanceof Error ? e.message : String(e))) throw e;
      await new Promise((r) => setTimeout(r, waitMs * attempt));
    }
  }
}
