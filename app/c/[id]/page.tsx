import type { Metadata } from "next";
import { getConversation } from "@/server/chat/conversations";
import { headers } from "next/headers";
import { getDb } from "@/server/db";
import { runAs } from "@/server/core/acting";
import { actingOf, principalOf } from "@/server/auth/gate";
import { ChatApp } from "../../_chat/chat-app";

export const dynamic = "force-dynamic";

/** The tab says which chat this is (the toolbar keeps it current as the title changes). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  // As the signed-in person: another person's conversation has no title to show.
  const person = actingOf(principalOf(await headers(), "http://localhost/c"));
  return { title: runAs(person, () => getConversation(getDb().sqlite, id)?.title) ?? "Conversation" };
}

/** Chat: one conversation. */
export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChatApp conversationId={id} />;
}
