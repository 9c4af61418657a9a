"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";

const BTN = "rounded px-1.5 py-0.5 text-xs text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

/** The conversations (newest activity first): open, start a new one, rename, delete. */
export function ConversationList({ currentId, onNew, onDeleted }: { currentId?: string; onNew: () => void; onDeleted: (id: string) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.conversations.list.queryOptions());
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.conversations.list.queryKey() });
  const refreshOne = (id: string) => void qc.invalidateQueries({ queryKey: trpc.conversations.get.queryKey({ id }) });
  const rename = useMutation(
    trpc.conversations.rename.mutationOptions({
      onSuccess: (c) => {
        setRenaming(null);
        setError(null);
        refresh();
        refreshOne(c.id);
      },
      onError: (e) => setError(e.message),
    }),
  );
  const del = useMutation(
    trpc.conversations.delete.mutationOptions({
      onSuccess: (r) => {
        setDeleting(null);
        setError(null);
        refresh();
        onDeleted(r.id);
      },
      onError: (e) => setError(e.message),
    }),
  );

  return (
    <nav aria-label="Conversations" className="shrink-0 space-y-2 md:w-60">
      <button
        type="button"
        onClick={onNew}
        className="w-full rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900"
      >
        New chat
      </button>
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <ul className="max-h-40 space-y-1 overflow-y-auto md:max-h-[70vh]" data-testid="conversation-list">
        {list.data?.length === 0 && <li className="px-2 text-xs text-zinc-500">No conversations yet.</li>}
        {list.data?.map((c) => {
          const current = c.id === currentId;
          return (
            <li key={c.id} data-testid="conversation-item" data-id={c.id} className={`rounded px-2 py-1 ${current ? "bg-zinc-200 dark:bg-zinc-800" : "hover:bg-zinc-100 dark:hover:bg-zinc-900"}`}>
              {renaming?.id === c.id ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (renaming.title.trim()) rename.mutate({ id: c.id, title: renaming.title });
                  }}
                  className="flex items-center gap-1"
                >
                  <label htmlFor={`rename-${c.id}`} className="sr-only">
                    New title
                  </label>
                  <input
                    id={`rename-${c.id}`}
                    autoFocus
                    value={renaming.title}
                    onChange={(e) => setRenaming({ id: c.id, title: e.target.value })}
                    onKeyDown={(e) => e.key === "Escape" && setRenaming(null)}
                    className="min-w-0 flex-1 rounded border border-zinc-300 bg-white px-1 py-0.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
                  />
                  <button type="submit" className={BTN} disabled={rename.isPending}>
                    Save
                  </button>
                </form>
              ) : (
                <>
                  <Link href={`/c/${c.id}`} aria-current={current ? "page" : undefined} className="block truncate text-sm" title={c.title}>
                    {c.title}
                  </Link>
                  <div className="flex items-center gap-1">
                    <span className="mr-auto truncate text-xs text-zinc-500">{c.spaceId}</span>
                    {deleting === c.id ? (
                      <>
                        <span className="text-xs">Delete?</span>
                        <button type="button" className={`${BTN} text-red-700 dark:text-red-300`} onClick={() => del.mutate({ id: c.id })} disabled={del.isPending}>
                          Yes, delete
                        </button>
                        <button type="button" className={BTN} onClick={() => setDeleting(null)}>
                          No
                        </button>
                      </>
                    ) : (
                      <>
                        <button type="button" className={BTN} aria-label={`Rename ${c.title}`} onClick={() => (setRenaming({ id: c.id, title: c.title }), setDeleting(null))}>
                          Rename
                        </button>
                        <button type="button" className={BTN} aria-label={`Delete ${c.title}`} onClick={() => (setDeleting(c.id), setRenaming(null))}>
                          Delete
                        </button>
                      </>
                    )}
                  </div>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
