import type { Metadata } from "next";
import { ChatApp } from "./_chat/chat-app";
import { SPACE_RE } from "@/server/core/space-name";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout's " · Memo" template skips its own segment: written out here);
// the chat toolbar keeps it current once the conversation has a title.
export const metadata: Metadata = { title: { absolute: "New conversation · Memo" } };

/** Chat: a new conversation (the first message creates it and the address becomes /c/<id>); `?space=` picks its space. */
export default async function Home({ searchParams }: { searchParams: Promise<{ space?: string | string[] }> }) {
  const { space } = await searchParams;
  const s = typeof space === "string" && SPACE_RE.test(space) ? space : undefined;
  return <ChatApp initialSpace={s} />;
}
