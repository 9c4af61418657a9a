import { ChatApp } from "./_chat/chat-app";

export const dynamic = "force-dynamic";

const SPACE_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** Chat: a new conversation (the first message creates it and the address becomes /c/<id>); `?space=` picks its space. */
export default async function Home({ searchParams }: { searchParams: Promise<{ space?: string | string[] }> }) {
  const { space } = await searchParams;
  const s = typeof space === "string" && SPACE_RE.test(space) ? space : undefined;
  return <ChatApp initialSpace={s} />;
}
