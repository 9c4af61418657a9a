/**
 * Stop, authoritatively: each streaming chat turn is registered under an id its page chose, so that
 * Stop is a request of its own (POST /api/chat/stop) rather than a dropped connection that the server
 * may notice late. Stop aborts the provider request at once and says how much of the reply the page
 * had shown; the turn then stores exactly that much (server/chat/turn.ts).
 */
import type { CutReason } from "./cut-short";
import { actingPersonId } from "../core/acting";

/** Turn ids are the acting person's: another person's turn id is an unknown one (a household server, issue 32). */
const scoped = (id: string) => `${actingPersonId()}:${id}`;

export class TurnControl {
  private readonly ac = new AbortController();
  /** Why the turn was cut short (null: it was not). The first reason wins. */
  reason: Exclude<CutReason, "failed" | "cancelled"> | null = null;
  /** On Stop: how many characters (UTF-16 code units) of the reply the page had shown. */
  shown: number | null = null;

  get signal(): AbortSignal {
    return this.ac.signal;
  }

  private settled = false;

  /** The turn commits its reply as it is (finished, or failed): from now on it cannot be cut. False if it was cut first. */
  settle(): boolean {
    if (this.reason) return false;
    this.settled = true;
    return true;
  }

  cut(reason: Exclude<CutReason, "failed" | "cancelled">, shown?: number): boolean {
    if (this.reason || this.settled) return false;
    this.reason = reason;
    this.shown = shown ?? null;
    this.ac.abort(new Error(reason));
    return true;
  }
}

// On globalThis: Next bundles route handlers apart, and the stop route must see the chat route's turns.
const g = globalThis as unknown as {
  __memoTurns?: Map<string, TurnControl>;
  __memoEarlyStops?: Map<string, { shown: number; at: number }>;
  __memoEndedTurns?: Map<string, number>;
};
const turns = () => (g.__memoTurns ??= new Map());
const earlyStops = () => (g.__memoEarlyStops ??= new Map());
const ended = () => (g.__memoEndedTurns ??= new Map());
const REMEMBER_MS = 60_000;

function sweep(m: Map<string, unknown>, at: (v: never) => number, now: number): void {
  for (const [k, v] of m) if (now - at(v as never) > REMEMBER_MS) m.delete(k);
}

/** Register a turn; a Stop that arrived before it (the page pressed Stop at once) applies now. */
export function registerTurn(turnId: string, control: TurnControl): () => void {
  const id = scoped(turnId);
  turns().set(id, control);
  const early = earlyStops().get(id);
  if (early) {
    earlyStops().delete(id);
    control.cut("stopped", early.shown);
  }
  return () => {
    if (turns().get(id) !== control) return;
    turns().delete(id);
    const now = Date.now();
    sweep(ended(), (t: number) => t, now);
    ended().set(id, now);
  };
}

/**
 * Stop a turn. "stopped": it was running and is stopped now; "finished": it had ended already (its
 * reply stands as stored); unknown ids are remembered for a minute in case the turn starts after.
 */
export function stopTurn(turnId: string, shown: number): "stopped" | "finished" {
  const id = scoped(turnId);
  const control = turns().get(id);
  if (control) return control.cut("stopped", shown) || control.reason === "stopped" ? "stopped" : "finished";
  if (ended().has(id)) return "finished";
  const now = Date.now();
  sweep(earlyStops(), (v: { at: number }) => v.at, now);
  earlyStops().set(id, { shown, at: now });
  return "stopped";
}
