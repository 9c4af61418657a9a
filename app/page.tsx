import type { Metadata } from "next";
import { ChatApp } from "./_chat/chat-app";
import { SPACE_RE } from "@/server/core/space-name";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo"); the toolbar keeps it current.
export const metadata: Metadata = { title: "New conversation" };

/** Chat: a new conversation (the first message creates it and the address becomes /c/<id>); `?space=` picks its space. */
export default async function Home({ searchParams }: { searchParams: Promise<{ space?: string | string[] }> }) {
  const { space } = await searchParams;
  const s = typeof space === "string" && SPACE_RE.test(space) ? space : undefined;
  return <ChatApp initialSpace={s} />;
}
