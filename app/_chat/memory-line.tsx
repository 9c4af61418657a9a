"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { RecalledMemory } from "@/server/chat/conversations";
import { useTRPC } from "../_trpc/client";
import { RecalledList } from "./message";
import { retryUnlessGone, useChatDeleting } from "./poll-guard";

/** The Manager filtered to one memory (its text, in its space). */
export function managerHref(content: string, space: string | undefined): string {
  // The Manager matches a substring as stored: the first line, cut, and no whitespace folding.
  const q = new URLSearchParams({ text: (content.split("\n")[0] ?? "").slice(0, 80) });
  if (space) q.set("space", space);
  return `/memory/manager?${q}`;
}

/**
 * Under a reply: what this exchange stored in memory ("Remembered", linking to the Manager), beside the
 * memories recalled into its prompt. The exchange is written after the reply, off its path, so a fresh
 * reply polls briefly until its memory appears.
 */
export function MemoryLine({
  messageId,
  createdAt,
  recalled,
  space,
}: {
  messageId: string | null;
  createdAt?: string;
  recalled: RecalledMemory[] | null;
  space?: string;
}) {
  const trpc = useTRPC();
  const fresh = createdAt ? Date.now() - Date.parse(createdAt) < 120_000 : false;
  const deleting = useChatDeleting();
  const remembered = useQuery({
    ...trpc.conversations.remembered.queryOptions({ messageId: messageId ?? "" }),
    enabled: Boolean(messageId) && !deleting,
    retry: retryUnlessGone,
    refetchInterval: (q) => (fresh && (q.state.data?.length ?? 0) === 0 ? 1500 : false),
  });
  const stored = remembered.data ?? [];
  // recalled = [] means recall ran and nothing reached the minimum confidence: say "No memory used".
  if (!recalled && !stored.length) return null;
  return (
    <div className="mt-1 flex flex-wrap items-start gap-x-3 gap-y-1" data-testid="memory-line">
      {stored.length > 0 && (
        <p className="py-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="remembered">
          <span className="font-medium">Remembered</span>{" "}
          {stored
            .map((m, i) => (
              <Link
                key={m.id}
                href={managerHref(m.content, space)}
                className="text-blue-700 underline max-sm:inline-flex max-sm:min-h-6 max-sm:items-center dark:text-blue-400"
                data-testid="remembered-link"
                title={m.content}
              >
                {stored.length === 1 ? "this exchange" : `part ${i + 1}`}
              </Link>
            ))
            .flatMap((el, i) => (i ? [<span key={`s${i}`}> · </span>, el] : [el]))}
        </p>
      )}
      {recalled && (
        // Full width under the reply on a phone (beside "Remembered" it had half); beside it from sm up.
        <div className="min-w-0 basis-full sm:basis-0 sm:flex-1">
          <RecalledList memories={recalled} />
        </div>
      )}
    </div>
  );
}
