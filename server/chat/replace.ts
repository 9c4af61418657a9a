/**
 * Regenerate, Retry and Edit: a new answer replaces part of a conversation. The replaced messages leave
 * the conversation when the new turn starts (one transaction); the memories made from the replaced
 * exchanges leave memory in the same transaction that writes the new exchange (write-exchange.ts), so memory
 * keeps exactly one exchange per turn.
 *
 * Which memories an exchange made is its persistence record (messages.memory_ids, write-exchange.ts). A replaced
 * exchange whose write is still queued finds its message gone and writes nothing.
 */
import type Database from "better-sqlite3";
import { parseCommand } from "./commands";
import { stripInterruptedNote } from "./exchange-queue";
import { chunkWords, exchangeText } from "../memory/store/chunker";
import { contentHash } from "../memory/store";
import { listMessages, type StoredMessage } from "./conversations";
import { ServiceError } from "../core/errors";

/** A user message and the reply that followed it, as persisted (the reply's stored text). */
export interface ExchangePair {
  user: string;
  assistant: string;
}

export type Replacement =
  /** Answer the conversation's last user message again (Regenerate, and Retry after an error). */
  | { type: "regenerate" }
  /** Replace a user message, and everything after it, by a new message. */
  | { type: "edit"; messageId: string };

export interface PreparedReplacement {
  /** The kept user message (regenerate); absent for an edit (the new message is appended as usual). */
  userMessage: StoredMessage | null;
  /** The text to answer. */
  message: string;
  /** The exchanges that were removed (their text keeps them out of the new answer's recall). */
  replaces: ExchangePair[];
  /** The memories recorded for the removed replies (messages.memory_ids): the new exchange's write removes them. */
  memoryIds: string[];
}

/** The user→assistant exchanges in a run of messages (memory commands are not exchanges). */
export function exchangePairs(messages: StoredMessage[]): ExchangePair[] {
  const out: ExchangePair[] = [];
  for (let i = 1; i < messages.length; i++) {
    const u = messages[i - 1]!;
    const a = messages[i]!;
    if (u.role !== "user" || a.role !== "assistant" || a.command || !a.content.trim()) continue;
    out.push({ user: u.content, assistant: a.content });
  }
  return out;
}

/**
 * Remove what the new answer replaces, in one transaction, and say what it was. Regenerate keeps the
 * last user message and drops the replies after it; edit drops the edited message and all after it.
 */
export function prepareReplacement(
  db: Database.Database,
  conversationId: string,
  r: Replacement,
  newText: string,
  opts: { dryRun?: boolean } = {},
): PreparedReplacement {
  return db.transaction((): PreparedReplacement => {
    const all = listMessages(db, conversationId);
    let from: number;
    let userMessage: StoredMessage | null = null;
    if (r.type === "regenerate") {
      const at = all.findLastIndex((m) => m.role === "user");
      if (at < 0) throw new ServiceError(400, "this conversation has no message to answer again");
      userMessage = all[at]!;
      if (parseCommand(userMessage.content) || all.slice(at + 1).some((m) => m.command))
        throw new ServiceError(400, "the reply to a memory command cannot be regenerated");
      from = at + 1;
    } else {
      from = all.findIndex((m) => m.id === r.messageId);
      if (from < 0 || all[from]!.role !== "user")
        throw new ServiceError(404, `no user message ${r.messageId} in this conversation`);
    }
    const removed = all.slice(from);
    const replaces = exchangePairs(all.slice(Math.max(0, from - 1)));
    const idsOf = db.prepare("SELECT memory_ids AS ids FROM messages WHERE id = ?");
    const memoryIds = removed.flatMap((m) => {
      const r = idsOf.get(m.id) as { ids: string | null } | undefined;
      return r?.ids ? (JSON.parse(r.ids) as string[]) : [];
    });
    if (!opts.dryRun) {
      const del = db.prepare("DELETE FROM messages WHERE id = ?");
      for (const m of removed) del.run(m.id);
    }
    return { userMessage, message: userMessage ? userMessage.content : newText, replaces, memoryIds };
  })();
}

/** The chunk hashes of an exchange as persisted. */
export function exchangeHashes(pair: ExchangePair): Set<string> {
  return new Set(chunkWords(exchangeText(pair.user, stripInterruptedNote(pair.assistant)), 300, 50).map(contentHash));
}

/** A test for recall: is this memory a chunk of one of the replaced exchanges? */
export function replacedMemory(replaces: ExchangePair[]): (m: { content: string }) => boolean {
  const hashes = new Set(replaces.flatMap((p) => [...exchangeHashes(p)]));
  return (m) => hashes.has(contentHash(m.content));
}
