import type { Metadata } from "next";
import { headers } from "next/headers";
import { ChatApp } from "../../_chat/chat-app";
import { conversationTitleFor } from "./load";

export const dynamic = "force-dynamic";

/** The tab says which chat this is (the toolbar keeps it current as the title changes). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  // As the signed-in person: another person's conversation has no title to show.
  return { title: conversationTitleFor(await headers(), id) ?? "Conversation" };
}

/** Chat: one conversation. */
export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChatApp conversationId={id} />;
}
