import { actingOf, principalOf } from "@/server/auth/gate";
import { getConversation } from "@/server/chat/conversations";
import { runAs } from "@/server/core/acting";
import { getDb } from "@/server/db";

/**
 * The one thing /c/[id] reads on the server: the conversation's title for the tab, as the signed-in person
 * (another person's conversation has none, exactly like a missing one). Apart from the page so that the
 * isolation suite (server/auth/isolation.test.ts) can call it as another person.
 */
export function conversationTitleFor(headers: Headers, id: string): string | null {
  const person = actingOf(principalOf(headers, "http://localhost/c"));
  return runAs(person, () => getConversation(getDb().sqlite, id)?.title) ?? null;
}
