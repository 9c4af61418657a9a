/**
 * A chat turn's input, checked once (issue 56: "validated once"): the message, its conversation (found, or
 * started) and what it replaces (removed) — all before anything streams, so bad input is a 4xx. The result is a
 * PreparedTurn, handed to runTurn (turn.ts) as data: the route (app/api/chat/route.ts) prepares it and runTurn
 * does not check any of it again.
 */
import { touchTemporaryChat } from "./temporary-chats";
import { startConversation } from "./conversation-start";
import { getConversationOr404, type Conversation } from "./conversations";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { mySpace } from "../core/acting";
import { loadPrivacySettings } from "./memory-policy";
import { MAX_MESSAGE_CHARS } from "./limits";
import { prepareReplacement, type PreparedReplacement, type Replacement } from "./replace";
import type { ProviderId } from "./providers";

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

/** A turn whose input was checked, with its conversation and what it replaces (already removed). */
export interface PreparedTurn {
  input: TurnInput;
  conv: Conversation;
  /** Regenerate / Retry / Edit: what was removed for the new answer; null for a new message. */
  rep: PreparedReplacement | null;
  /** What is answered: the message, or (regenerate) the last user message again. */
  message: string;
  /** When the turn began (performance.now()): its timings count from here. */
  t0: number;
}

export const isPrepared = (t: TurnInput | PreparedTurn): t is PreparedTurn => "conv" in t && "input" in t;

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
 * Check a turn's input, find or start its conversation and remove what it replaces: every 4xx a turn can have,
 * in this order. `admit` runs once the message is checked and before anything is looked up or written (the
 * route refuses a turn while Memo is closing there, and reads what the request replaces); what it returns is
 * the turn's replacement (default: `input.replace`).
 */
export function prepareTurn(
  memo: MemoContext,
  input: TurnInput,
  admit: () => Replacement | undefined = () => input.replace,
): PreparedTurn {
  const t0 = performance.now();
  checkTurnInput(input);
  const replace = admit();
  const conv = turnConversation(memo, input);
  const rep = replace ? prepareReplacement(memo.db, conv.id, replace, input.message) : null;
  return { input: { ...input, replace }, conv, rep, message: rep?.message ?? input.message, t0 };
}
