import type { Metadata } from "next";
import { getConversation } from "@/server/chat/conversations";
import { getDb } from "@/server/db";
import { ChatApp } from "../../_chat/chat-app";

export const dynamic = "force-dynamic";

/** The tab says which chat this is (the toolbar keeps it current as the title changes). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: getConversation(getDb().sqlite, id)?.title ?? "Conversation" };
}

/** Chat: one conversation. */
export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChatApp conversationId={id} />;
}
