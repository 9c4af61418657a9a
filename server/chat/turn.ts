/**
 * One chat turn (SPEC §1): memory commands; otherwise query building with the conversation's last 3 user
 * messages, hybrid retrieval (promoting what is recalled), packing under a token budget into the system
 * prompt, the reply streamed from the provider, the reply stored with the memories it used, and — after
 * the reply, never delaying it — the exchange persisted as memories by the retrying queue.
 *
 * runTurn() is an async generator of TurnEvents: the chat route streams them to the page as server-sent
 * events; the benchmark and tests read them directly.
 */
import { packMemories, type PackOptions } from "../memory/pack";
import { packable, type RetrievedMemory } from "../memory/retrieve";
import {
  appendMessages,
  createConversation,
  getConversationOr404,
  previousUserMessages,
  promptHistory,
  type CommandInfo,
  type Conversation,
  type RecalledMemory,
  type StoredMessage,
} from "../services/conversation-service";
import { DEFAULT_SPACE, FORGET_CONFIRM_OVER, forgetIds, forgetPreview, remember, search, ServiceError, type MemoContext } from "../services/memory-service";
import { COMMAND_HELP, parseCommand, SHORTCUT_HELP } from "./commands";
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
}

export interface TurnDeps {
  memo: MemoContext;
  /** Default: the configured provider (getProvider). */
  provider?: (id?: ProviderId) => ChatProvider;
  /** Default: the app's queue. */
  persist?: PersistQueue;
  signal?: AbortSignal;
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
  | { type: "recall"; memories: RecalledMemory[]; considered: number; queries: string[]; ms: number; error: string | null }
  | { type: "provider"; id: ProviderId; label: string; model: string | null }
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
export function packRecalled(results: RetrievedMemory[], topN: number, tokenBudget: number, opts: PackOptions = {}): { block: string; included: RetrievedMemory[] } {
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
}

/** Retrieval for a prompt (SPEC §1 steps 2–6): recalled memories are promoted. */
export async function recallForPrompt(memo: MemoContext, input: { space: string; query: string; context: string[]; exclude?: (m: RetrievedMemory) => boolean }): Promise<Recall> {
  const t0 = performance.now();
  try {
    const r = await search(memo, { query: input.query, space: input.space, context: input.context, promote: true });
    const results = input.exclude ? r.results.filter((m) => !input.exclude!(m)) : r.results;
    // Only results at or above the minimum confidence reach the prompt (none: "no memory used").
    const { block, included } = packRecalled(packable(results, r.settings.minConfidence), r.settings.topN, r.settings.tokenBudget, {
      speakers: r.settings.packSpeakers,
      assistantMaxChars: r.settings.assistantMaxChars,
    });
    return { block, memories: included.map(toRecalled), considered: results.length, queries: r.queries.map((q) => q.text), ms: ms(t0), error: null };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // An empty space (nothing stored yet) is not an error worth showing.
    if (e instanceof ServiceError && e.status === 404) return { block: "", memories: [], considered: 0, queries: [], ms: ms(t0), error: null };
    console.warn(`[chat] memory recall failed, answering without memories: ${message}`);
    return { block: "", memories: [], considered: 0, queries: [], ms: ms(t0), error: `Memory recall failed: ${message}` };
  }
}

export function systemPrompt(block: string): string {
  return block ? `${SYSTEM_PROMPT}\n\n${block}` : SYSTEM_PROMPT;
}

/** Validate a turn's input before anything streams; ServiceError (4xx) otherwise. */
export function checkTurnInput(input: TurnInput): void {
  if (typeof input.message !== "string" || !input.message.trim()) throw new ServiceError(400, "message must not be empty");
  if (input.message.length > MAX_MESSAGE_CHARS) throw new ServiceError(413, `message must be at most ${MAX_MESSAGE_CHARS} characters`);
  if (input.message.includes("\u0000")) throw new ServiceError(400, "message must not contain NUL characters");
}

/** Resolve (or create) the conversation of a turn; throws 404 for an unknown id. */
export function turnConversation(memo: MemoContext, input: TurnInput): Conversation {
  if (input.conversationId) return getConversationOr404(memo.db, input.conversationId);
  return createConversation(memo.db, { space: input.space ?? DEFAULT_SPACE });
}

async function* runCommand(memo: MemoContext, conv: Conversation, message: string, cmd: NonNullable<ReturnType<typeof parseCommand>>): AsyncGenerator<TurnEvent> {
  let reply: string;
  let info: CommandInfo;
  try {
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
          const shown = p.items.slice(0, 50).map((i) => `- ${i.pinned ? "📌 " : ""}${i.content.replace(/\s+/g, " ").slice(0, 200)}`);
          reply =
            `${p.count} memor${p.count === 1 ? "y matches" : "ies match"} “${cmd.pattern.trim()}”${p.pinned ? `, ${p.pinned} of them pinned` : ""}. Nothing is forgotten until you confirm.\n\n` +
            shown.join("\n") +
            (p.count > shown.length ? `\n- … and ${p.count - shown.length} more` : "");
          const items = p.items.map((i) => ({ id: i.id, content: i.content, timestamp: i.timestamp, pinned: i.pinned }));
          info = { type: "forget", pattern: cmd.pattern, count: p.count, items, undo: { ids: [], until: new Date().toISOString() }, undoneAt: null, pending: { ids: p.items.map((i) => i.id), pinned: p.pinned } };
          break;
        }
        const r = forgetIds(memo, p.items.map((i) => i.id), cmd.pattern.trim());
        reply = r.count ? `${r.message}\n\n${r.items.map((i) => `- ${i.content.replace(/\s+/g, " ").slice(0, 200)}`).join("\n")}` : r.message;
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
    yield { type: "error", kind: "command", status: se?.status ?? 500, message: e instanceof Error ? e.message : String(e), partial: null };
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
    void persist.enqueue({ space: conv.spaceId, conversationId: conv.id, user: "", assistant: "", timestamp: new Date().toISOString(), source: "chat", replaces: replacedIds });

  const cmd = parseCommand(message);
  if (cmd) {
    yield* runCommand(memo, conv, message, cmd);
    dropReplaced();
    return;
  }

  const userMessage = rep?.userMessage ?? appendMessages(memo.db, conv.id, [{ role: "user", content: message }])[0];
  yield { type: "start", conversation: getConversationOr404(memo.db, conv.id), userMessage: userMessage! };

  let provider: ChatProvider;
  try {
    provider = (deps.provider ?? ((id?: ProviderId) => getProvider(memo.db, id)))(input.provider);
  } catch (e) {
    const pe = e instanceof ProviderError ? e : new ProviderError("not_configured", e instanceof Error ? e.message : String(e));
    yield { type: "error", kind: pe.kind, status: pe.status, message: pe.message, partial: null };
    dropReplaced();
    return;
  }

  const context = previousUserMessages(memo.db, conv.id, 3, userMessage!.id);
  // An answer given again must not be shaped by the memory of the answer it replaces.
  const recall = await recallForPrompt(memo, { space: conv.spaceId, query: message, context, exclude: replaces.length ? replacedMemory(replaces) : undefined });
  yield { type: "recall", memories: recall.memories, considered: recall.considered, queries: recall.queries, ms: recall.ms, error: recall.error };

  const prompt: ChatMessage[] = [
    { role: "system", content: systemPrompt(recall.block) },
    ...promptHistory(memo.db, conv.id, HISTORY_TOKENS, userMessage!.id),
    { role: "user", content: message },
  ];
  yield { type: "provider", id: provider.id, label: provider.label, model: input.model ?? provider.model };

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
    failure = e instanceof ProviderError ? e : new ProviderError("upstream", e instanceof Error ? e.message : String(e), provider.id);
  }

  const keep = !failure || text.trim().length > 0; // a cut-short reply is kept (interruptedNote)
  if (!keep) {
    dropReplaced();
    yield { type: "error", kind: failure!.kind, status: failure!.status, message: failure!.message, partial: null };
    return;
  }
  const content = text.trim() ? (failure ? text + interruptedNote(failure) : text) : "(the model returned an empty reply)";
  const [assistant] = appendMessages(memo.db, conv.id, [{ role: "assistant", content, recalled: recall.memories }]);
  if (text.trim()) {
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
  yield { type: "done", message: assistant!, timings: { recallMs: recall.ms, firstTokenMs, providerFirstTokenMs, totalMs: ms(t0) }, finishReason };
}
