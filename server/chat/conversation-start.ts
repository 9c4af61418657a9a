/**
 * A new conversation started by its first turn, with the spaces shared with its person that its recall also
 * reads, picked before the first message (issue 48: the chat page holds them until the turn starts the
 * conversation). The same checks as adding them later (conversations.setSpaces): only spaces shared with the
 * person, each readable now; a refusal comes before anything is stored, so no conversation is left behind.
 */
import type Database from "better-sqlite3";
import { isMine } from "../core/acting";
import { ServiceError } from "../core/errors";
import { requireReadableSpace, setConversationSpaces } from "../memory/store";
import { createConversation, type Conversation } from "./conversations";

export function startConversation(
  db: Database.Database,
  input: Parameters<typeof createConversation>[1],
  sharedSpaces: readonly string[] = [],
): Conversation {
  const added = [...new Set(sharedSpaces)];
  for (const s of added) {
    if (isMine(s)) throw new ServiceError(400, "only spaces shared with you can be added to a conversation");
    requireReadableSpace(db, s); // 404, as for a space that does not exist, when it is not shared with the person
  }
  return db.transaction(() => {
    const conv = createConversation(db, input);
    if (added.length) setConversationSpaces(db, conv.id, added);
    return conv;
  })();
}
