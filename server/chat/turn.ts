/**
 * One chat turn (docs/architecture.md#a-chat-turn): memory commands; otherwise query building with the conversation's last 3 user
 * messages, hybrid retrieval (promoting what is recalled), packing under a token budget into the system
 * prompt, the reply streamed from the provider, the reply stored with the memories it used, and — after
 * the reply, never delaying it — the exchange persisted as memories by the retrying queue.
 *
 * runTurn() is an async generator of TurnEvents: the chat route streams them to the page as server-sent
 * events; the benchmark and tests read them directly.
 */
import { packMemories, type PackOptions } from "../memory/pack";
import { packable, type RetrievedMemory } from "../memory/retrieve";
import { recordRetrievals } from "../memory/store";
import { touchTemporaryChat } from "./temporary-chats";
import {
  appendMessages,
  createConversation,
  deleteConversation,
  getConversationOr404,
  previousUserMessages,
  promptHistory,
  type CommandInfo,
  type Conversation,
  type RecalledMemory,
  type StoredMessage,
} from "./conversations";
import { FORGET_CONFIRM_OVER, forgetIds, forgetPreview } from "../memory/forget";
import { search } from "../memory/search";
import { remember } from "../memory/write";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { COMMAND_HELP, parseCommand, SHORTCUT_HELP } from "./commands";
import { loadPrivacySettings, planFor, sentMemory, type ProviderEndpoint, type SentMemory } from "./memory-policy";
import { logPrompt } from "./prompt-log";
import { markExchangeSettled, persistQueue, type PersistQueue } from "./persist";
import { prepareReplacement, replacedMemory, type Replacement } from "./replace";
import { getProvider, ProviderError, type ChatMessage, type ChatProvider, type ProviderId } from "./providers";

import { MAX_MESSAGE_CHARS } from "./limits";

export { MAX_MESSAGE_CHARS };
/** Earlier dialogue sent with each message, newest first, within this many (estimated) tokens. */
export const HISTORY_TOKENS = Number(process.env.MEMO_CHAT_HISTORY_TOKENS) || 3000;

/**
 * The partial-exchange rule. A reply cut short — the client disconnected (its request is cancelled at
 * once, so no generation runs on for nobody), Memo is shutting down, or the provider failed mid-reply —
 * is kept with what was generated, since the user saw it: stored in the conversation with this note
 * appended, so the page never mistakes it for a complete answer, and persisted as memory like a full
 * exchange without the note (the memory holds what was said, not a status line). A message that got no
 * reply at all stays in the conversation and does not become a memory.
 */
export function interruptedNote(failure: { kind: string; message: string }): string {
  return failure.kind === "aborted"
    ? "\n\n[interrupted: the reply was stopped before it finished]"
    : `\n\n[interrupted: the provider failed mid-reply: ${failure.message.replace(/\s+/g, " ").slice(0, 200)}]`;
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
}

export interface TurnDeps {
  memo: MemoContext;
  /** Default: the configured provider (getProvider). */
  provider?: (id?: ProviderId) => ChatProvider;
  /** Default: the app's queue. */
  persist?: PersistQueue;
  signal?: AbortSignal;
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
  | { type: "error"; kind: string; status: number; message: string; partial: StoredMessage | null };

const ms = (t0: number) => Math.round((performance.now() - t0) * 10) / 10;

function toRecalled(r: RetrievedMemory): RecalledMemory {
  return {
    id: r.id,
    content: r.content,
    timestamp: r.timestamp,
    kind: r.kind,
    matchType: r.matchType,
    importance: r.importance,
    pinned: r.pinned,
    scores: r.scores,
  };
}

/**
 * Pack the recalled memories under the budget and say which of them made it in: packMemories is greedy in
 * rank order, so a memory is in exactly when adding it to the prefix before it raises the count.
 */
export function packRecalled(
  results: RetrievedMemory[],
  topN: number,
  tokenBudget: number,
  opts: PackOptions = {},
): { block: string; included: RetrievedMemory[] } {
  const { block } = packMemories(results, topN, tokenBudget, opts);
  const included: RetrievedMemory[] = [];
  let before = 0;
  for (let i = 0; i < Math.min(results.length, topN); i++) {
    const used = packMemories(results.slice(0, i + 1), topN, tokenBudget, opts).used;
    if (used > before) included.push(results[i]!);
    before = used;
  }
  return { block, included };
}

export interface Recall {
  block: string;
  memories: RecalledMemory[];
  considered: number;
  queries: string[];
  ms: number;
  /** Retrieval failed (e.g. the embedding server is down): the reply goes on without memories. */
  error: string | null;
  /** The memories this recall counts as retrieved (promoteRecall). */
  promotable: string[];
}

export const NO_RECALL: Recall = {
  block: "",
  memories: [],
  considered: 0,
  queries: [],
  ms: 0,
  error: null,
  promotable: [],
};

/**
 * Retrieval for a prompt (docs/retrieval.md). `only: "pinned"` keeps pinned memories only (what a
 * provider may receive, server/chat/memory-policy.ts). The recalled memories are promoted unless
 * `promote: false` (then promoteRecall does it once the prompt is sure to be sent).
 */
export async function recallForPrompt(
  memo: MemoContext,
  input: { space: string; query: string; context: string[]; exclude?: (m: RetrievedMemory) => boolean },
  opts: { only?: "all" | "pinned"; promote?: boolean } = {},
): Promise<Recall> {
  const t0 = performance.now();
  try {
    const r = await search(memo, { query: input.query, space: input.space, context: input.context, promote: false });
    const kept = input.exclude ? r.results.filter((m) => !input.exclude!(m)) : r.results;
    const allowed = opts.only === "pinned" ? kept.filter((m) => m.pinned) : kept;
    // Only results at or above the minimum confidence reach the prompt (none: "no memory used"), and only those count as recalled.
    const usable = packable(allowed, r.settings.minConfidence);
    const { block, included } = packRecalled(usable, r.settings.topN, r.settings.tokenBudget, {
      speakers: r.settings.packSpeakers,
      assistantMaxChars: r.settings.assistantMaxChars,
    });
    const recall: Recall = {
      block,
      memories: included.map(toRecalled),
      considered: allowed.length,
      queries: r.queries.map((q) => q.text),
      ms: ms(t0),
      error: null,
      promotable: usable.map((m) => m.id),
    };
    if (opts.promote ?? true) promoteRecall(memo, recall);
    return recall;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // An empty space (nothing stored yet) is not an error worth showing.
    if (e instanceof ServiceError && e.status === 404) return { ...NO_RECALL, ms: ms(t0) };
    console.warn(`[chat] memory recall failed, answering without memories: ${message}`);
    return { ...NO_RECALL, ms: ms(t0), error: `Memory recall failed: ${message}` };
  }
}

/** Count a recall into a prompt: retrieval_count +1 and importance promoted for what it found. */
export function promoteRecall(memo: MemoContext, recall: Recall): void {
  if (recall.promotable.length) recordRetrievals(memo.db, recall.promotable);
}

export function systemPrompt(block: string): string {
  return block ? `${SYSTEM_PROMPT}\n\n${block}` : SYSTEM_PROMPT;
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
    const conv = getConversationOr404(memo.db, input.conversationId);
    if (input.temporary && !conv.temporary)
      throw new ServiceError(400, "temporary can only be chosen when a conversation starts; this one is not temporary");
    if (conv.temporary) touchTemporaryChat(memo.db, conv.id);
    return conv;
  }
  const readMemory = loadPrivacySettings(memo.db).temporaryReadsMemory;
  return createConversation(memo.db, { space: input.space ?? DEFAULT_SPACE, temporary: input.temporary, readMemory });
}

/** A memory command this conversation does not allow (a temporary chat changes no memory; storing off refuses /remember). */
function refusedCommand(conv: Conversation, type: string): string | null {
  if (conv.temporary && (type === "remember" || type === "forget"))
    return "This is a temporary chat: it never changes memory, so /remember and /forget are off here.";
  if (!conv.memory.store && type === "remember")
    return "Storing memories is off for this conversation: turn it on in the conversation header to use /remember.";
  return null;
}

async function* runCommand(
  memo: MemoContext,
  conv: Conversation,
  message: string,
  cmd: NonNullable<ReturnType<typeof parseCommand>>,
): AsyncGenerator<TurnEvent> {
  let reply: string;
  let info: CommandInfo;
  const refused = refusedCommand(conv, cmd.type);
  try {
    if (refused) {
      reply = refused;
      info = { type: "invalid", message: refused };
    } else
      switch (cmd.type) {
        case "remember": {
          const r = await remember(memo, cmd.text, conv.spaceId);
          reply = r.message;
          info = { type: "remember", text: cmd.text, ids: r.ids };
          break;
        }
        case "forget": {
          // More than FORGET_CONFIRM_OVER matches, or a pinned one: show them and ask first.
          const p = forgetPreview(memo, cmd.pattern, conv.spaceId);
          if (p.count > FORGET_CONFIRM_OVER || p.pinned > 0) {
            const shown = p.items
              .slice(0, 50)
              .map((i) => `- ${i.pinned ? "📌 " : ""}${i.content.replace(/\s+/g, " ").slice(0, 200)}`);
            reply =
              `${p.count} memor${p.count === 1 ? "y matches" : "ies match"} “${cmd.pattern.trim()}”${p.pinned ? `, ${p.pinned} of them pinned` : ""}. Nothing is forgotten until you confirm.\n\n` +
              shown.join("\n") +
              (p.count > shown.length ? `\n- … and ${p.count - shown.length} more` : "");
            const items = p.items.map((i) => ({
              id: i.id,
              content: i.content,
              timestamp: i.timestamp,
              pinned: i.pinned,
            }));
            info = {
              type: "forget",
              pattern: cmd.pattern,
              count: p.count,
              items,
              undo: { ids: [], until: new Date().toISOString() },
              undoneAt: null,
              pending: { ids: p.items.map((i) => i.id), pinned: p.pinned },
            };
            break;
          }
          const r = forgetIds(
            memo,
            p.items.map((i) => i.id),
            cmd.pattern.trim(),
          );
          reply = r.count
            ? `${r.message}\n\n${r.items.map((i) => `- ${i.content.replace(/\s+/g, " ").slice(0, 200)}`).join("\n")}`
            : r.message;
          info = { type: "forget", pattern: cmd.pattern, count: r.count, items: r.items, undo: r.undo, undoneAt: null };
          break;
        }
        case "help":
          reply = `Memory commands:\n${COMMAND_HELP}\n\nKeyboard shortcuts:\n${SHORTCUT_HELP}`;
          info = { type: "help" };
          break;
        case "invalid":
          reply = cmd.message;
          info = { type: "invalid", message: cmd.message };
          break;
      }
  } catch (e) {
    const se = e instanceof ServiceError ? e : null;
    yield {
      type: "error",
      kind: "command",
      status: se?.status ?? 500,
      message: e instanceof Error ? e.message : String(e),
      partial: null,
    };
    return;
  }
  const [user, assistant] = appendMessages(memo.db, conv.id, [
    { role: "user", content: message },
    { role: "assistant", content: reply, command: info },
  ]);
  markExchangeSettled(memo.db, assistant!.id); // a command's answer is not an exchange to remember
  yield { type: "start", conversation: getConversationOr404(memo.db, conv.id), userMessage: user! };
  yield { type: "command", message: assistant!, command: info };
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
  const plan = provider
    ? planFor(
        memo.db,
        { recall: conv.memory.recall, store: conv.memory.store, temporary: conv.temporary },
        provider.id,
        canAsk,
      )
    : null;
  const context = previousUserMessages(memo.db, conv.id, 3, rep?.userMessage?.id); // before this message
  // An answer given again must not be shaped by the memory of the answer it replaces.
  const exclude = replaces.length ? replacedMemory(replaces) : undefined;
  const recallNow = () =>
    recallForPrompt(
      memo,
      { space: conv.spaceId, query: message, context, exclude },
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
    { role: "system", content: systemPrompt(recall.block) },
    ...promptHistory(memo.db, conv.id, HISTORY_TOKENS, userMessage!.id),
    { role: "user", content: message },
  ];
  const sent = sentMemory(
    plan,
    recall.block,
    recall.memories.map((m) => m.id),
  );
  yield { type: "provider", id: provider.id, label: provider.label, model: input.model ?? provider.model };
  yield { type: "sent", sent };
  logPrompt(`chat turn in conversation ${conv.id}`, sent.provider, prompt);

  let text = "";
  let firstTokenMs: number | null = null;
  let providerFirstTokenMs: number | null = null;
  let finishReason: string | null = null;
  const tProvider = performance.now();
  let failure: ProviderError | null = null;
  try {
    const gen = provider.stream(prompt, { model: input.model, signal: deps.signal });
    for (;;) {
      const next = await gen.next();
      if (next.done) {
        finishReason = next.value.finishReason;
        break;
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

  const keep = !failure || text.trim().length > 0; // a cut-short reply is kept (interruptedNote)
  if (!keep) {
    dropReplaced();
    yield { type: "error", kind: failure!.kind, status: failure!.status, message: failure!.message, partial: null };
    return;
  }
  const content = text.trim()
    ? failure
      ? text + interruptedNote(failure)
      : text
    : "(the model returned an empty reply)";
  const [assistant] = appendMessages(memo.db, conv.id, [
    { role: "assistant", content, recalled: recall.memories, sent },
  ]);
  if (text.trim() && plan.store) {
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
    });
  } else {
    markExchangeSettled(memo.db, assistant!.id);
    dropReplaced();
  }
  if (failure) {
    yield { type: "error", kind: failure.kind, status: failure.status, message: failure.message, partial: assistant! };
    return;
  }
  yield {
    type: "done",
    message: assistant!,
    timings: { recallMs: recall.ms, firstTokenMs, providerFirstTokenMs, totalMs: ms(t0) },
    finishReason,
  };
}
