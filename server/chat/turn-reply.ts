/**
 * A chat turn's reply from its provider (turn.ts): the stream of pieces, told apart from why it ended early
 * (Stop, reload, shutdown, a failure: server/chat/cut-short.ts) and whether the prompt reached the provider.
 */
import { ms } from "./turn-recall";
import { ProviderError, type ChatMessage, type ChatProvider } from "./providers";
import type { TurnControl } from "./turn-control";

/**
 * Why nothing of the prompt reached the provider, or null when it may have: it was never asked (stopped
 * first), or it failed to connect (refused, not found, its local server not running) before any reply.
 * Any answer from it, even an error status, means the prompt arrived.
 */
export function notSentReason(asked: boolean, text: string, failure: ProviderError | null): string | null {
  if (!asked) return "stopped before the provider was asked";
  if (text || !failure) return null;
  if (failure.kind === "unreachable" || failure.kind === "unavailable" || failure.kind === "not_configured")
    return `the provider could not be reached (${failure.message})`;
  return null;
}

/** How the provider's reply went. */
export interface StreamedReply {
  text: string;
  /** Whether the provider was asked at all (not when stopped before). */
  asked: boolean;
  failure: ProviderError | null;
  finishReason: string | null;
  firstTokenMs: number | null;
  providerFirstTokenMs: number | null;
}

export const abortedBy = (provider: ChatProvider) =>
  new ProviderError("aborted", "The request was cancelled.", provider.id);

/**
 * Ask the provider and yield each piece of its reply as it comes; returns how it went. A piece that arrives
 * after Stop is never yielded (the page stopped showing at Stop). `t0`: the turn's start (time to first token).
 */
export async function* streamReply(
  provider: ChatProvider,
  prompt: ChatMessage[],
  o: { model?: string; control?: TurnControl; signal?: AbortSignal; t0: number },
): AsyncGenerator<string, StreamedReply> {
  const { control } = o;
  const out: StreamedReply = {
    text: "",
    asked: false,
    failure: null,
    finishReason: null,
    firstTokenMs: null,
    providerFirstTokenMs: null,
  };
  const tProvider = performance.now();
  try {
    if (control?.reason) throw abortedBy(provider); // stopped before the provider was asked: it never is
    out.asked = true;
    const gen = provider.stream(prompt, { model: o.model, signal: control?.signal ?? o.signal });
    for (;;) {
      const next = await gen.next();
      if (next.done) {
        out.finishReason = next.value.finishReason;
        break;
      }
      if (control?.reason) {
        await gen.return(undefined as never).catch(() => undefined);
        throw abortedBy(provider);
      }
      if (out.firstTokenMs === null) {
        out.firstTokenMs = ms(o.t0);
        out.providerFirstTokenMs = ms(tProvider);
      }
      out.text += next.value;
      yield next.value;
    }
  } catch (e) {
    out.failure =
      e instanceof ProviderError
        ? e
        : new ProviderError("upstream", e instanceof Error ? e.message : String(e), provider.id);
  }
  return out;
}
