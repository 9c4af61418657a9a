"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { managerHref } from "../../_chat/memory-line";
import { useTRPC } from "../../_trpc/client";
import { localDateTime } from "../../_ui/local-time";
import { ErrorAlert } from "../../_ui/ui";
import type { FactSource } from "./fact-types";

const LINK = "text-blue-700 underline dark:text-blue-400";

/**
 * Where a source is read: the chat message of its exchange (/c/<conversation>#<message>), its chat when the
 * message is not known, else the memory itself in the Manager (a document's passage shows its file there).
 */
export function sourceHref(s: FactSource, space: string): string {
  if (s.conversationId)
    return `/c/${encodeURIComponent(s.conversationId)}${s.messageId ? `#${encodeURIComponent(s.messageId)}` : ""}`;
  const href = managerHref(s.excerpt, space);
  return s.live ? href : `${href}&status=all`;
}

/** What the link opens, in a few words. */
const KIND_LABEL: Record<string, string> = {
  chat: "a chat exchange",
  remember: "a note you asked Memo to remember",
  import: "an imported exchange",
  consolidated: "a merged memory",
  document: "a document passage",
};

function sourceLabel(s: FactSource): string {
  if (s.documentName) return s.documentName;
  if (s.conversationId) return s.messageId ? "the chat message" : "the chat";
  return KIND_LABEL[s.kind] ?? "a memory";
}

/** The memories a fact came from, each linked to the chat message or document it is (facts.sources). */
export function FactSources({ factId, space, id }: { factId: string; space: string; id: string }) {
  const trpc = useTRPC();
  const sources = useQuery(trpc.facts.sources.queryOptions({ id: factId }));
  const list = sources.data?.sources ?? [];
  return (
    <div id={id} className="mt-2 border-l-2 border-zinc-200 pl-3 dark:border-zinc-700" data-testid="fact-sources">
      <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Where Memo learned it</h4>
      {sources.isLoading && <p className="text-sm text-zinc-500">Loading the sources…</p>}
      {sources.error && <ErrorAlert>{sources.error.message}</ErrorAlert>}
      {sources.data && list.length === 0 && <p className="text-sm text-zinc-500">No source you can read.</p>}
      {list.length > 0 && (
        <ul className="mt-1 space-y-1.5 text-sm">
          {list.map((s) => (
            <li key={s.memoryId} data-testid="fact-source">
              <Link href={sourceHref(s, space)} className={LINK} data-testid="fact-source-link">
                {sourceLabel(s)}
              </Link>{" "}
              <span className="text-xs text-zinc-500">
                <time dateTime={s.timestamp}>{localDateTime(s.timestamp)}</time>
                {s.documentName && s.conversationId === null ? " · document" : ""}
                {s.live ? "" : " · in the trash"}
              </span>
              <span className="line-clamp-2 block text-xs text-zinc-600 dark:text-zinc-400">{s.excerpt}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
