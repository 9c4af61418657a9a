import Link from "next/link";
import { EmbedderBanner } from "./memory/search/embedder-banner";

export const dynamic = "force-dynamic";

export default function Home() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Memo</h1>
      <p className="text-zinc-600 dark:text-zinc-400">
        A local-first chat app with persistent memory. Every exchange is remembered in a local SQLite store and recalled, by meaning and by
        keyword, into later conversations.
      </p>
      <EmbedderBanner />
      <p>
        The chat page arrives with the chat issue. Meanwhile, add memories through the HTTP API (see the README) and explore recall on{" "}
        <Link className="text-blue-600 underline" href="/memory/search">
          Debug Search
        </Link>
        .
      </p>
    </div>
  );
}
