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
import type { MemoContext } from "../core/context";
import { parseCommand } from "./commands";
import {
  planAddedSpaces,
  planFor,
  sentMemory,
  type AddedSpace,
  type ProviderEndpoint,
  type SentMemory,
  type TurnMemoryPlan,
} from "./memory-policy";
import { logPrompt } from "./prompt-log";
import { markExchangeSettled, persistQueue, type PersistQueue } from "./exchange-queue";
import { replacedMemory } from "./replace";
import {
  ProviderError,
  providerFrom,
  resolveProviderConfig,
  type ChatMessage,
  type ChatProvider,
  type ProviderConfig,
  type ProviderId,
} from "./providers";
import { MAX_MESSAGE_CHARS } from "./limits";
import { ms, NO_RECALL, promoteRecall, provenanceOf, recallForPrompt, type Recall } from "./turn-recall";
import { runCommand } from "./turn-command";
import { LABELS_LEGEND } from "../memory/retrieval/memory-block";
import { cutNote, keptOnlyOnRequest, type CutReason } from "./cut-short";
import type { TurnControl } from "./turn-control";
import { conversationSpaces } from "../memory/store";
import { EmbeddedTexts } from "./embedded-texts";
import { decideLearning } from "./learning-decision";
import { isPrepared, prepareTurn, type PreparedTurn, type TurnInput } from "./turn-input";
import { abortedBy, notSentReason, streamReply, type StreamedReply } from "./turn-reply";

export { checkTurnInput, prepareTurn, turnConversation, type PreparedTurn, type TurnInput } from "./turn-input";
export { notSentReason } from "./turn-reply";
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

/** The turn's provider, from the configuration it resolved once; or why there is none. */
interface TurnProvider {
  cfg: ProviderConfig | null;
  provider: ChatProvider | null;
  failure: ProviderError | null;
}

/**
 * Resolve the provider configuration (once a turn: the reply's provider, the memory plan and "Sent to", and
 * the learning decision all read this one) and build the turn's provider from it.
 */
function turnProvider(deps: TurnDeps, input: TurnInput): TurnProvider {
  let cfg: ProviderConfig | null = null;
  try {
    cfg = resolveProviderConfig(deps.memo.db);
    const provider = deps.provider ? deps.provider(input.provider) : providerFrom(cfg, input.provider);
    return { cfg, provider, failure: null };
  } catch (e) {
    const failure =
      e instanceof ProviderError ? e : new ProviderError("not_configured", e instanceof Error ? e.message : String(e));
    return { cfg, provider: null, failure };
  }
}

/**
 * What memory this turn may read, send and store: one decision for every way a turn runs. Regenerate and edit
 * have already removed what they replace: they are never paused for the sharing question (an undecided remote
 * provider gets no memories for them). The spaces shared with this person that the conversation added go as far
 * as their owners let them go to this provider (the stricter of both choices); what was held back is said on the
 * reply's memory line.
 */
function planTurn(
  memo: MemoContext,
  turn: PreparedTurn,
  chosen: { cfg: ProviderConfig; provider: ChatProvider },
  canAsk: boolean,
): { plan: TurnMemoryPlan; added: AddedSpace[] } {
  const { conv } = turn;
  const memory = { recall: conv.memory.recall, store: conv.memory.store, temporary: conv.temporary };
  const personal = planFor(memo.db, memory, chosen.provider.id, canAsk && !turn.rep, chosen.cfg);
  const shared = planAddedSpaces(memo.db, personal, conversationSpaces(memo.db, conv.id));
  const plan =
    shared.reason && personal.recall
      ? { ...personal, reason: [personal.reason, shared.reason].filter(Boolean).join("; ") }
      : personal;
  return { plan, added: shared.added };
}

/** What the end of a reply needs: the turn, its plan, its recall and the reply as it ended. */
interface ReplyEnd {
  deps: TurnDeps;
  turn: PreparedTurn;
  persist: PersistQueue;
  provider: ChatProvider;
  cfg: ProviderConfig;
  plan: TurnMemoryPlan;
  userMessage: StoredMessage;
  recall: Recall;
  sent: SentMemory;
  reply: StreamedReply;
  embedded: EmbeddedTexts;
  dropReplaced: () => void;
}

/**
 * Store the reply (the partial-exchange rule: interruptedNote) and, when it may become memory, queue its
 * exchange with the learning decision made now, from the turn's configuration (learning-decision.ts), and the
 * vectors the turn already has; then the last event.
 */
async function* endReply(e: ReplyEnd): AsyncGenerator<TurnEvent> {
  const { memo, control } = e.deps;
  const { conv, input } = e.turn;
  const { reply, provider } = e;
  let text = reply.text;
  // Nothing reached the provider (never asked, or no connection was made): "Sent to" says so, not what would have gone.
  const why = notSentReason(reply.asked, text, reply.failure);
  const sent = why ? { ...e.sent, notSent: why } : e.sent;
  if (why) yield { type: "sent", sent };
  // Why the reply ended early, if it did. A cut (Stop, reload, shutdown) that comes after the reply
  // settled changes nothing: it is stored as it ended.
  const { failure } = reply;
  const cutBy = control && !control.settle() ? control.reason : null;
  const reason: CutReason | null = cutBy ?? (failure ? (failure.kind === "aborted" ? "cancelled" : "failed") : null);
  if (cutBy === "stopped" && control!.shown !== null) text = text.slice(0, Math.max(0, control!.shown));
  const stopped = cutBy === "stopped";
  const keep = stopped || !reason || text.trim().length > 0; // a cut-short reply is kept (cut-short.ts)
  if (!keep) {
    e.dropReplaced();
    const f = failure ?? abortedBy(provider);
    yield { type: "error", kind: f.kind, status: f.status, message: f.message, partial: null };
    return;
  }
  const content = reason
    ? text + cutNote(reason, failure?.message)
    : text.trim()
      ? text
      : "(the model returned an empty reply)";
  const [assistant] = appendMessages(memo.db, conv.id, [
    { role: "assistant", content, recalled: e.recall.memories, sent },
  ]);
  if (text.trim() && e.plan.store && !keptOnlyOnRequest(reason)) {
    // Not awaited: the reply is complete for the page now; the queue retries and logs failures, and the
    // write records itself on the assistant message (recovery re-queues only unrecorded ones).
    void e.persist.enqueue({
      space: conv.spaceId,
      conversationId: conv.id,
      user: e.turn.message,
      assistant: text,
      timestamp: e.userMessage.createdAt,
      source: "chat",
      record: { messageId: assistant!.id },
      replaces: e.turn.rep?.memoryIds ?? [],
      learn: decideLearning(e.cfg, { provider: provider.id, model: input.model ?? null }),
      recalled: provenanceOf(e.recall),
      embedded: e.embedded,
    });
  } else {
    markExchangeSettled(memo.db, assistant!.id);
    e.dropReplaced();
  }
  if (stopped) {
    yield { type: "stopped", message: assistant! };
    return;
  }
  if (reason) {
    const f = failure ?? abortedBy(provider);
    yield { type: "error", kind: f.kind, status: f.status, message: f.message, partial: assistant! };
    return;
  }
  const timings = {
    recallMs: e.recall.ms,
    firstTokenMs: reply.firstTokenMs,
    providerFirstTokenMs: reply.providerFirstTokenMs,
    totalMs: ms(e.turn.t0),
  };
  yield { type: "done", message: assistant!, timings, finishReason: reply.finishReason };
}

/** A replaced exchange whose successor stores no memory still leaves memory: a removal-only job. */
function dropReplacedMemory(persist: PersistQueue, conv: Conversation, replacedIds: string[]): void {
  if (!replacedIds.length) return;
  void persist.enqueue({
    space: conv.spaceId,
    conversationId: conv.id,
    user: "",
    assistant: "",
    timestamp: new Date().toISOString(),
    source: "chat",
    replaces: replacedIds,
  });
}

/**
 * Run one turn: a PreparedTurn (turn-input.ts: the route prepared it) or a turn's input, prepared here — input
 * errors (empty message, unknown conversation) are thrown before the first event; everything after the first
 * event is reported as an `error` event.
 */
export async function* runTurn(deps: TurnDeps, input: TurnInput | PreparedTurn): AsyncGenerator<TurnEvent> {
  const { memo } = deps;
  const turn = isPrepared(input) ? input : prepareTurn(memo, input);
  const { conv, rep, message } = turn;
  const persist = deps.persist ?? persistQueue();
  const dropReplaced = () => dropReplacedMemory(persist, conv, rep?.memoryIds ?? []);

  const cmd = parseCommand(message);
  if (cmd) {
    yield* runCommand(memo, conv, message, cmd);
    dropReplaced();
    return;
  }

  const chosen = turnProvider(deps, turn.input);
  const { cfg, provider } = chosen;
  const planned = provider && cfg ? planTurn(memo, turn, { cfg, provider }, deps.canAsk ?? true) : null;
  const plan = planned?.plan ?? null;
  const context = previousUserMessages(memo.db, conv.id, 3, rep?.userMessage?.id); // before this message
  // An answer given again must not be shaped by the memory of the answer it replaces.
  const exclude = rep?.replaces.length ? replacedMemory(rep.replaces) : undefined;
  // The vectors this turn makes, kept for the fact learner (embedded-texts.ts).
  const embedded = new EmbeddedTexts();
  const recallNow = () =>
    recallForPrompt(
      { ...memo, embedder: embedded.recording(memo.embedder) },
      {
        space: conv.spaceId,
        added: planned?.added ?? [],
        query: message,
        context,
        exclude,
        tzOffsetMinutes: turn.input.tzOffsetMinutes,
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
      const conversation = empty ? null : getConversationOr404(memo.db, conv.id);
      yield { type: "consent", conversation, endpoint: plan.endpoint, memories: recall.memories.length };
      return;
    }
  }

  const userMessage = rep?.userMessage ?? appendMessages(memo.db, conv.id, [{ role: "user", content: message }])[0]!;
  yield { type: "start", conversation: getConversationOr404(memo.db, conv.id), userMessage };

  if (!provider || !plan || !cfg) {
    const pe = chosen.failure!;
    yield { type: "error", kind: pe.kind, status: pe.status, message: pe.message, partial: null };
    dropReplaced();
    return;
  }

  recall ??= plan.recall ? await recallNow() : NO_RECALL;
  if (plan.promote) promoteRecall(memo, recall);
  const { memories, considered, queries, error } = recall;
  yield { type: "recall", memories, considered, queries, ms: recall.ms, error };

  const today = weekdayAndDay(Date.now(), turn.input.tzOffsetMinutes ?? defaultOffsetMinutes());
  const prompt: ChatMessage[] = [
    { role: "system", content: systemPrompt(recall.block, today) },
    ...promptHistory(memo.db, conv.id, HISTORY_TOKENS, userMessage.id),
    { role: "user", content: message },
  ];
  const ids = recall.memories.map((m) => m.id);
  const sent = sentMemory(
    plan,
    recall.block,
    ids,
    recall.facts.map((f) => f.id),
  );
  yield { type: "provider", id: provider.id, label: provider.label, model: turn.input.model ?? provider.model };
  yield { type: "sent", sent };
  logPrompt(`chat turn in conversation ${conv.id}`, sent.provider, prompt);

  const o = { model: turn.input.model, control: deps.control, signal: deps.signal, t0: turn.t0 };
  const pieces = streamReply(provider, prompt, o);
  let next = await pieces.next();
  for (; !next.done; next = await pieces.next()) yield { type: "delta", text: next.value };
  const reply = next.value;
  yield* endReply({
    deps,
    turn,
    persist,
    provider,
    cfg,
    plan,
    userMessage,
    recall,
    sent,
    reply,
    embedded,
    dropReplaced,
  });
}
