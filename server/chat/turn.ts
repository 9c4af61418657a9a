import { touchTemporaryChat } from "./temporary-chats";
import { startConversation } from "./conversation-start";
import {
  appendMessages,
  deleteConversation,
  getConversationOr404,
  previousUserMessages,
  promptHistory,
  type CommandInfo,
  type Conversation,
  type RecalledMemory,
  type StoredMessage,
} from "./conversations";
import { defaultOffsetMinutes, weekdayAndDay } from "../core/calendar";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { parseCommand } from "./commands";
import {
  loadPrivacySettings,
  planAddedSpaces,
  planFor,
  sentMemory,
  type ProviderEndpoint,
  type SentMemory,
} from "./memory-policy";
import { logPrompt } from "./prompt-log";
import { markExchangeSettled, persistQueue, type PersistQueue } from "./persist";
import { prepareReplacement, replacedMemory, type Replacement } from "./replace";
import { getProvider, ProviderError, type ChatMessage, type ChatProvider, type ProviderId } from "./providers";

import { MAX_MESSAGE_CHARS } from "./limits";
import { ms, NO_RECALL, promoteRecall, provenanceOf, recallForPrompt, type Recall } from "./turn-recall";
import { runCommand } from "./turn-command";
import { LABELS_LEGEND } from "../memory/retrieval/memory-block";
import { cutNote, keptOnlyOnRequest, type CutReason } from "./cut-short";
import type { TurnControl } from "./turn-control";
import { mySpace } from "../core/acting";
import { conversationSpaces } from "../memory/store";

export { MAX_MESSAGE_CHARS };
/** Earlier dialogue sent with each message, newest first, within this many (estimated) tokens. */
export const HISTORY_TOKENS = Number(process.env.MEMO_CHAT_HISTORY_TOKENS) || 3000;

/**
 * The partial-exchange rule (server/chat/cut-short.ts). A reply cut short is stored with what was shown
 * and a note saying why it ended. Stopped by the person (TurnControl, POST /api/chat/stop), the stored
 * text is exactly what their page had shown, and it is not a memory unless they keep it; so too when
 * their page went away mid-reply. Cut by the provider failing, by Memo shutting down, or by a caller's
 * own signal, it is persisted as memory like a full exchange without the note. A reply stopped before
 * its first token is stored empty (marked stopped); any other message that got no reply at all stays
 * in the conversation alone and does not become a memory.
 */
export function interruptedNote(failure: { kind: string; message: string }): string {
  return failure.kind === "aborted" ? cutNote("cancelled") : cutNote("failed", failure.message);
}

export const SYSTEM_PROMPT =
  "You are Memo, a helpful assistant with a long-term memory of earlier conversations with this user. " +
  "When a block headed “Relevant Memories” follows, it holds what was recalled for the current message, each with its date; " +
  "use what helps to answer, prefer newer facts when they disagree, and do not mention the block unless asked.";

export interface TurnInput {
  /** Absent: start a new conversation in `space`. */
  conversationId?: string;
  space?: string;
  message: string;
  /** Use this provider (and model) for this turn instead of the selected one. */
  provider?: ProviderId;
  model?: string;
  /** Regenerate / Retry / Edit: what the new answer replaces (server/chat/replace.ts). */
  replace?: Replacement;
  /** Start a temporary chat (reads memory or not, per Settings; never writes any). */
  temporary?: boolean;
  /** The person's time zone (minutes east of UTC): the days of "yesterday", the block's dates, today's date; default the server's. */
  tzOffsetMinutes?: number;
  /** A new conversation only: spaces shared with the person (keys) that its recall also reads (conversation-start.ts). */
  sharedSpaces?: string[];
}

export interface TurnDeps {
  memo: MemoContext;
  /** Default: the configured provider (getProvider). */
  provider?: (id?: ProviderId) => ChatProvider;
  /** Default: the app's queue. */
  persist?: PersistQueue;
  /** Cancels the turn (a bare signal: the reply is kept as "cancelled"; see interruptedNote). */
  signal?: AbortSignal;
  /** Stop, reload and shutdown, told apart (the chat page's turns; server/chat/turn-control.ts). */
  control?: TurnControl;
  /**
   * The caller can ask the owner whether a remote provider may receive memories (the chat page, default):
   * an undecided one then gets a `consent` event instead of a reply. Otherwise it is treated as "off".
   */
  canAsk?: boolean;
}

export interface TurnTimings {
  /** Retrieval: query embedding, hybrid search, packing. */
  recallMs: number;
  /** From the start of the turn to the first token of the reply. */
  firstTokenMs: number | null;
  /** From the provider request to its first token (the provider's own time to first token). */
  providerFirstTokenMs: number | null;
  totalMs: number;
}

export type TurnEvent =
  | { type: "start"; conversation: Conversation; userMessage: StoredMessage }
  | {
      type: "recall";
      memories: RecalledMemory[];
      considered: number;
      queries: string[];
      ms: number;
      error: string | null;
    }
  | { type: "provider"; id: ProviderId; label: string; model: string | null }
  /** Nothing was stored or sent: a remote provider would get memories and the owner has not said whether it may. */
  | { type: "consent"; conversation: Conversation | null; endpoint: ProviderEndpoint; memories: number }
  /** What memory goes to the provider with this prompt (the exact block, or none and why). */
  | { type: "sent"; sent: SentMemory }
  | { type: "delta"; text: string }
  | { type: "command"; message: StoredMessage; command: CommandInfo }
  | { type: "done"; message: StoredMessage; timings: TurnTimings; finishReason: string | null }
  /** Stopped by the person: `message` is what was stored, exactly the text their page showed (and the note). */
  | { type: "stopped"; message: StoredMessage }
  | { type: "error"; kind: string; status: number; message: string; partial: StoredMessage | null };

/**
 * The system prompt: Memo's instructions, the person's date (memories are dated in their days), and with a
 * memory block what its labels mean (said once, LABELS_LEGEND) and the block.
 */
export function systemPrompt(block: string, today?: string): string {
  const head = today ? `${SYSTEM_PROMPT}\nToday is ${today} in the user's time zone.` : SYSTEM_PROMPT;
  return block ? `${head}\n${LABELS_LEGEND}\n\n${block}` : head;
}

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

/** Validate a turn's input before anything streams; ServiceError (4xx) otherwise. */
export function checkTurnInput(input: TurnInput): void {
  if (typeof input.message !== "string" || !input.message.trim())
    throw new ServiceError(400, "message must not be empty");
  if (input.message.length > MAX_MESSAGE_CHARS)
    throw new ServiceError(413, `message must be at most ${MAX_MESSAGE_CHARS} characters`);
  if (input.message.includes("\u0000")) throw new ServiceError(400, "message must not contain NUL characters");
}

/** Resolve (or create) the conversation of a turn; throws 404 for an unknown id. */
export function turnConversation(memo: MemoContext, input: TurnInput): Conversation {
  if (input.conversationId) {
    if (input.sharedSpaces?.length)
      throw new ServiceError(
        400,
        "sharedSpaces can only be chosen when a conversation starts; add them to this one with conversations.setSpaces",
      );
    const conv = getConversationOr404(memo.db, input.conversationId);
    if (input.temporary && !conv.temporary)
      throw new ServiceError(400, "temporary can only be chosen when a conversation starts; this one is not temporary");
    if (conv.temporary) touchTemporaryChat(memo.db, conv.id);
    return conv;
  }
  const readMemory = loadPrivacySettings(memo.db).temporaryReadsMemory;
  return startConversation(
    memo.db,
    { space: input.space ?? mySpace(DEFAULT_SPACE), temporary: input.temporary, readMemory },
    input.sharedSpaces,
  );
}

/**
 * Run one turn. Input errors (empty message, unknown conversation) are thrown before the first event;
 * everything after the first event is reported as an `error` event.
 */
export async function* runTurn(deps: TurnDeps, input: TurnInput): AsyncGenerator<TurnEvent> {
  checkTurnInput(input);
  const { memo } = deps;
  const t0 = performance.now();
  const conv = turnConversation(memo, input);
  const persist = deps.persist ?? persistQueue();
  const rep = input.replace ? prepareReplacement(memo.db, conv.id, input.replace, input.message) : null;
  const message = rep?.message ?? input.message;
  const replaces = rep?.replaces ?? [];
  const replacedIds = rep?.memoryIds ?? [];
  // A replaced exchange whose successor stores no memory still leaves memory (a removal-only job).
  const dropReplaced = () =>
    replacedIds.length &&
    void persist.enqueue({
      space: conv.spaceId,
      conversationId: conv.id,
      user: "",
      assistant: "",
      timestamp: new Date().toISOString(),
      source: "chat",
      replaces: replacedIds,
    });

  const cmd = parseCommand(message);
  if (cmd) {
    yield* runCommand(memo, conv, message, cmd);
    dropReplaced();
    return;
  }

  let provider: ChatProvider | null = null;
  let providerFailure: ProviderError | null = null;
  try {
    provider = (deps.provider ?? ((id?: ProviderId) => getProvider(memo.db, id)))(input.provider);
  } catch (e) {
    providerFailure =
      e instanceof ProviderError ? e : new ProviderError("not_configured", e instanceof Error ? e.message : String(e));
  }

  // What memory this turn may read, send and store: one decision for every way a turn runs.
  // Regenerate and edit have already removed what they replace: they are never paused for the sharing
  // question (an undecided remote provider gets no memories for them).
  const canAsk = (deps.canAsk ?? true) && !rep;
  const personal = provider
    ? planFor(
        memo.db,
        { recall: conv.memory.recall, store: conv.memory.store, temporary: conv.temporary },
        provider.id,
        canAsk,
      )
    : null;
  // The spaces shared with this person that the conversation added, as far as their owners let them go to
  // this provider (the stricter of both choices); what was held back is said on the reply's memory line.
  const shared = personal ? planAddedSpaces(memo.db, personal, conversationSpaces(memo.db, conv.id)) : null;
  const plan =
    personal && shared?.reason && personal.recall
      ? { ...personal, reason: [personal.reason, shared.reason].filter(Boolean).join("; ") }
      : personal;
  const context = previousUserMessages(memo.db, conv.id, 3, rep?.userMessage?.id); // before this message
  // An answer given again must not be shaped by the memory of the answer it replaces.
  const exclude = replaces.length ? replacedMemory(replaces) : undefined;
  const recallNow = () =>
    recallForPrompt(
      memo,
      {
        space: conv.spaceId,
        added: shared?.added ?? [],
        query: message,
        context,
        exclude,
        tzOffsetMinutes: input.tzOffsetMinutes,
      },
      { only: plan!.only, promote: false },
    );
  let recall: Recall | null = null;
  if (plan?.sharing === "ask" && plan.recall) {
    // An undecided remote provider: would this turn send it memories? Then nothing is stored or sent
    // until the owner says whether it may.
    recall = await recallNow();
    if (recall.memories.length) {
      // A conversation this message would have started is not kept empty: the answer starts it afresh.
      const empty = getConversationOr404(memo.db, conv.id).messageCount === 0;
      if (empty) deleteConversation(memo.db, conv.id);
      yield {
        type: "consent",
        conversation: empty ? null : getConversationOr404(memo.db, conv.id),
        endpoint: plan.endpoint,
        memories: recall.memories.length,
      };
      return;
    }
  }

  const userMessage = rep?.userMessage ?? appendMessages(memo.db, conv.id, [{ role: "user", content: message }])[0];
  yield { type: "start", conversation: getConversationOr404(memo.db, conv.id), userMessage: userMessage! };

  if (!provider || !plan) {
    const pe = providerFailure!;
    yield { type: "error", kind: pe.kind, status: pe.status, message: pe.message, partial: null };
    dropReplaced();
    return;
  }

  recall ??= plan.recall ? await recallNow() : NO_RECALL;
  if (plan.promote) promoteRecall(memo, recall);
  yield {
    type: "recall",
    memories: recall.memories,
    considered: recall.considered,
    queries: recall.queries,
    ms: recall.ms,
    error: recall.error,
  };

  const prompt: ChatMessage[] = [
    {
      role: "system",
      content: systemPrompt(recall.block, weekdayAndDay(Date.now(), input.tzOffsetMinutes ?? defaultOffsetMinutes())),
    },
    ...promptHistory(memo.db, conv.id, HISTORY_TOKENS, userMessage!.id),
    { role: "user", content: message },
  ];
  let sent = sentMemory(
    plan,
    recall.block,
    recall.memories.map((m) => m.id),
    recall.facts.map((f) => f.id),
  );
  yield { type: "provider", id: provider.id, label: provider.label, model: input.model ?? provider.model };
  yield { type: "sent", sent };
  logPrompt(`chat turn in conversation ${conv.id}`, sent.provider, prompt);

  const control = deps.control;
  const aborted = () => new ProviderError("aborted", "The request was cancelled.", provider!.id);
  let text = "";
  let firstTokenMs: number | null = null;
  let providerFirstTokenMs: number | null = null;
  let finishReason: string | null = null;
  const tProvider = performance.now();
  let failure: ProviderError | null = null;
  let asked = false;
  try {
    if (control?.reason) throw aborted(); // stopped before the provider was asked: it never is
    asked = true;
    const gen = provider.stream(prompt, { model: input.model, signal: control?.signal ?? deps.signal });
    for (;;) {
      const next = await gen.next();
      if (next.done) {
        finishReason = next.value.finishReason;
        break;
      }
      if (control?.reason) {
        // A piece that arrived after Stop is never sent: the page stopped showing at Stop.
        await gen.return(undefined as never).catch(() => undefined);
        throw aborted();
      }
      if (firstTokenMs === null) {
        firstTokenMs = ms(t0);
        providerFirstTokenMs = ms(tProvider);
      }
      text += next.value;
      yield { type: "delta", text: next.value };
    }
  } catch (e) {
    failure =
      e instanceof ProviderError
        ? e
        : new ProviderError("upstream", e instanceof Error ? e.message : String(e), provider.id);
  }

  // Nothing reached the provider (never asked, or no connection was made): "Sent to" says so, not what would have gone.
  const why = notSentReason(asked, text, failure);
  if (why) {
    sent = { ...sent, notSent: why };
    yield { type: "sent", sent };
  }

  // Why the reply ended early, if it did. A cut (Stop, reload, shutdown) that comes after the reply
  // settled changes nothing: it is stored as it ended.
  const cutBy = control && !control.settle() ? control.reason : null;
  const reason: CutReason | null = cutBy ?? (failure ? (failure.kind === "aborted" ? "cancelled" : "failed") : null);
  if (cutBy === "stopped" && control!.shown !== null) text = text.slice(0, Math.max(0, control!.shown));
  const stopped = cutBy === "stopped";
  const keep = stopped || !reason || text.trim().length > 0; // a cut-short reply is kept (cut-short.ts)
  if (!keep) {
    dropReplaced();
    const f = failure ?? aborted();
    yield { type: "error", kind: f.kind, status: f.status, message: f.message, partial: null };
    return;
  }
  const content = reason
    ? text + cutNote(reason, failure?.message)
    : text.trim()
      ? text
      : "(the model returned an empty reply)";
  const [assistant] = appendMessages(memo.db, conv.id, [
    { role: "assistant", content, recalled: recall.memories, sent },
  ]);
  if (text.trim() && plan.store && !keptOnlyOnRequest(reason)) {
    // Not awaited: the reply is complete for the page now; the queue retries and logs failures, and the
    // write records itself on the assistant message (recovery re-queues only unrecorded ones).
    void persist.enqueue({
      space: conv.spaceId,
      conversationId: conv.id,
      user: message,
      assistant: text,
      timestamp: userMessage!.createdAt,
      source: "chat",
      record: { messageId: assistant!.id },
      replaces: replacedIds,
      learn: { provider: provider.id, model: input.model ?? null },
      recalled: provenanceOf(recall),
    });
  } else {
    markExchangeSettled(memo.db, assistant!.id);
    dropReplaced();
  }
  if (stopped) {
    yield { type: "stopped", message: assistant! };
    return;
  }
  if (reason) {
    const f = failure ?? aborted();
    yield { type: "error", kind: f.kind, status: f.status, message: f.message, partial: assistant! };
    return;
  }
  yield {
    type: "done",
    message: assistant!,
    timings: { recallMs: recall.ms, firstTokenMs, providerFirstTokenMs, totalMs: ms(t0) },
    finishReason,
  };
}
