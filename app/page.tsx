import { ChatApp } from "./_chat/chat-app";
import { SPACE_RE } from "@/server/core/space-name";

export const dynamic = "force-dynamic";

/** Chat: a new conversation (the first message creates it and the address becomes /c/<id>); `?space=` picks its space. */
export default async function Home({ searchParams }: { searchParams: Promise<{ space?: string | string[] }> }) {
  const { space } = await searchParams;
  const s = typeof space === "string" && SPACE_RE.test(space) ? space : undefined;
  return <ChatApp initialSpace={s} />;
}
