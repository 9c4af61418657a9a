/**
 * Requests in flight that generate (chat turns, OpenAI-compatible completions), so that a graceful
 * shutdown can let them finish for a short grace period and then stop them: each takes a signal that
 * fires when the grace period is over (the turn then keeps what was generated, marked as interrupted —
 * see server/chat/turn.ts), and reports when its response body is done.
 */
const g = globalThis as unknown as {
  __memoInflight?: {
    active: Set<symbol>;
    stop: AbortController;
    idle: (() => void)[];
    closing: boolean;
    /** When the last generating request began or ended (ms), and who wants to know when one begins. */
    lastActivity: number;
    onBegin: Set<() => void>;
  };
};
const state = () =>
  (g.__memoInflight ??= {
    active: new Set(),
    stop: new AbortController(),
    idle: [],
    closing: false,
    lastActivity: 0,
    onBegin: new Set(),
  });

/** A shutdown has begun: routes refuse new generating requests (503) from now on. */
export function markClosing(): void {
  state().closing = true;
}

export function closing(): boolean {
  return state().closing;
}

export const CLOSING_MESSAGE = "Memo is shutting down; try again in a moment.";

export interface Inflight {
  /** Fires when a shutdown stops the work still running after its grace period. */
  signal: AbortSignal;
  /** The request is done (idempotent). */
  end(): void;
}

export function beginRequest(): Inflight {
  const s = state();
  const id = Symbol("request");
  s.active.add(id);
  s.lastActivity = Date.now();
  for (const fn of s.onBegin) fn();
  return {
    signal: s.stop.signal,
    end() {
      if (!s.active.delete(id)) return;
      s.lastActivity = Date.now();
      if (s.active.size === 0) for (const w of s.idle.splice(0)) w();
    },
  };
}

/**
 * Background work that shares what a reply needs (the embedding server, the local chat model) waits for a
 * quiet moment: no generating request in flight and none for `quietMs` (server/chat/fact-learner.ts).
 */
export function quietFor(quietMs: number, now = Date.now()): boolean {
  const s = state();
  return s.active.size === 0 && now - s.lastActivity >= quietMs;
}

/** Be told when a generating request begins (returns the unsubscribe). */
export function onRequestBegin(fn: () => void): () => void {
  const s = state();
  s.onBegin.add(fn);
  return () => s.onBegin.delete(fn);
}

export function inflightCount(): number {
  return state().active.size;
}

/** Whether a shutdown has stopped in-flight work (new work should be refused). */
export function stopping(): boolean {
  return state().stop.signal.aborted;
}

function whenIdle(ms: number): Promise<boolean> {
  const s = state();
  if (s.active.size === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    s.idle.push(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

/**
 * Wait up to `graceMs` for the requests in flight to finish; then stop the rest (their signal fires) and
 * wait up to `abortWaitMs` for them to wind down. Returns how many were stopped and how many remain.
 */
export async function drainRequests(
  graceMs: number,
  abortWaitMs = 1000,
): Promise<{ finished: boolean; stopped: number; remaining: number }> {
  if (await whenIdle(graceMs)) return { finished: true, stopped: 0, remaining: 0 };
  const stopped = inflightCount();
  state().stop.abort(new Error("Memo is shutting down"));
  await whenIdle(abortWaitMs);
  return { finished: false, stopped, remaining: inflightCount() };
}

/** A response whose body calls `end` when it has been sent in full, failed, or was cancelled by the client. */
export function trackBody(res: Response, end: () => void): Response {
  if (!res.body) {
    end();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          end();
        } else controller.enqueue(value);
      } catch (e) {
        end();
        controller.error(e);
      }
    },
    async cancel(reason) {
      try {
        await reader.cancel(reason); // the inner stream's cancel(): stops the provider request
      } finally {
        end();
      }
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
