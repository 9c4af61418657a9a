"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Conversation } from "@/server/chat/conversations";
import { useTRPC } from "../_trpc/client";
import { ConversationItem } from "./conversation-item";
import { announceDeleted, DeletedChatNotice } from "./delete-chat";
import { useDebounced } from "../_ui/use-debounced";

export type ConversationRow = Conversation & { snippet?: string | null };

const DAY = 86_400_000;

/** Pinned first, then Today / Yesterday / Previous 7 days / Older by last activity (local time). */
export function groupConversations(
  rows: ConversationRow[],
  now = new Date(),
): { label: string; items: ConversationRow[] }[] {
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const groups: { label: string; items: ConversationRow[] }[] = [
    "Pinned",
    "Today",
    "Yesterday",
    "Previous 7 days",
    "Older",
  ].map((label) => ({ label, items: [] }));
  for (const c of rows) {
    const t = Date.parse(c.updatedAt);
    const g = c.pinned ? 0 : t >= midnight ? 1 : t >= midnight - DAY ? 2 : t >= midnight - 7 * DAY ? 3 : 4;
    groups[g]!.items.push(c);
  }
  return groups.filter((g) => g.items.length);
}

/** The conversations: search, open, new chat, and per conversation pin, rename, export and delete. */
export function ConversationList({
  currentId,
  onNew,
  onDeleted,
  onOpen,
}: {
  currentId?: string;
  onNew: () => void;
  onDeleted: (id: string) => void;
  onOpen?: () => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [query, setQuery] = useState("");
  const q = useDebounced(query.trim(), 200);
  const list = useQuery({ ...trpc.conversations.list.queryOptions(), enabled: !q });
  const found = useQuery({ ...trpc.conversations.search.queryOptions({ query: q }), enabled: Boolean(q) });
  const [error, setError] = useState<string | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.conversations.list.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.conversations.search.queryKey() });
  };
  const onError = (e: { message: string }) => setError(e.message);
  const ok = () => (setError(null), refresh());
  const rename = useMutation(
    trpc.conversations.rename.mutationOptions({
      onSuccess: (c) => (ok(), void qc.invalidateQueries({ queryKey: trpc.conversations.get.queryKey({ id: c.id }) })),
      onError,
    }),
  );
  const pin = useMutation(trpc.conversations.pin.mutationOptions({ onSuccess: ok, onError }));
  const del = useMutation(
    trpc.conversations.delete.mutationOptions({
      // A reply's polls in flight would find the reply gone (its lines wait while deleting: poll-guard.ts).
      onMutate: () =>
        Promise.all([
          qc.cancelQueries({ queryKey: trpc.learning.reply.queryKey() }),
          qc.cancelQueries({ queryKey: trpc.conversations.remembered.queryKey() }),
        ]),
      onSuccess: (r) => (ok(), announceDeleted(r), onDeleted(r.id)),
      onError,
    }),
  );
  const exp = useMutation(
    trpc.conversations.exportMarkdown.mutationOptions({
      onSuccess: (r) => {
        const url = URL.createObjectURL(new Blob([r.markdown], { type: "text/markdown;charset=utf-8" }));
        const a = document.createElement("a");
        a.href = url;
        a.download = r.filename;
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      },
      onError,
    }),
  );

  const rows: ConversationRow[] | undefined = q ? found.data : list.data;
  const groups = q ? [{ label: `Results for “${q}”`, items: rows ?? [] }] : groupConversations(rows ?? []);

  return (
    <nav aria-label="Conversations" className="flex min-h-0 flex-1 flex-col gap-2">
      <div className="flex gap-2">
        <button
          type="button"
          onClick={onNew}
          title="New chat (Ctrl+Shift+O)"
          className="flex-1 rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900"
        >
          New chat
        </button>
      </div>
      <input
        type="search"
        aria-label="Search conversations"
        placeholder="Search conversations"
        value={query}
        maxLength={200}
        onChange={(e) => setQuery(e.target.value)}
        className="w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      />
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <DeletedChatNotice />
      {found.error && q && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {found.error.message}
        </p>
      )}
      <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain pr-1" data-testid="conversation-scroller">
        {rows?.length === 0 && (
          <p className="px-2 text-xs text-zinc-500">
            {q ? "No conversation contains these words." : "No conversations yet."}
          </p>
        )}
        {groups.map((g) => (
          <section key={g.label} aria-label={g.label} className="mb-2">
            <h2 className="px-2 pb-0.5 pt-1 text-[11px] font-semibold uppercase tracking-wide text-zinc-500">
              {g.label}
            </h2>
            <ul className="space-y-0.5" data-testid="conversation-list">
              {g.items.map((c) => (
                <ConversationItem
                  key={c.id}
                  c={c}
                  current={c.id === currentId}
                  onOpen={onOpen}
                  busy={rename.isPending || del.isPending || pin.isPending}
                  onRename={(title) => rename.mutateAsync({ id: c.id, title }).then(() => undefined)}
                  onPin={() => pin.mutate({ id: c.id, pinned: !c.pinned })}
                  onExport={() => exp.mutate({ id: c.id })}
                  onDelete={(forget) => del.mutate({ id: c.id, forgetMemories: forget })}
                />
              ))}
            </ul>
          </section>
        ))}
      </div>
    </nav>
  );
}
