/**
 * TEST HELPER: wait on a condition instead of sleeping for a guessed time. Polls `check` until it returns a
 * value that `done` accepts (default: truthy), and on the deadline fails with what it last saw, so a slow
 * machine costs time, not a false failure, and a real failure says what was there instead.
 *
 *   const runs = await waitUntil(() => listRuns(db), { what: "two ticks", done: (r) => r.length >= 2 });
 */
export async function waitUntil<T>(
  check: () => T | Promise<T>,
  opts: { what: string; done?: (v: T) => boolean; timeoutMs?: number; everyMs?: number; show?: (v: T) => unknown },
): Promise<T> {
  const { what, done = (v: T) => Boolean(v), timeoutMs = 15_000, everyMs = 20, show = (v: T) => v } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (done(v)) return v;
    if (Date.now() > deadline) {
      let seen: string;
      try {
        seen = JSON.stringify(show(v)) ?? String(v);
      } catch {
        seen = String(v);
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last saw: ${seen.slice(0, 2000)}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
