import { ChatApp } from "../../_chat/chat-app";

export const dynamic = "force-dynamic";

/** Chat: one conversation. */
export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChatApp conversationId={id} />;
}
