"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

export const SHARE_MODE_LABEL = { read: "read-only", write: "read-write" } as const;

/** Which spaces a chat adds: an open conversation's (stored), or a new chat's, held here until its first turn. */
export type SharedSpacesTarget =
  | { conversationId: string }
  | { pending: string[]; onPending: (spaces: string[]) => void };

/**
 * In the chat toolbar: the spaces other people share with this person (whose, and how), each a checkbox that
 * adds it to this conversation's recall (conversations.setSpaces). In a new chat the picks are held by the page
 * and go with the first message (POST /api/chat `sharedSpaces`), which checks them as setSpaces does. Adding it
 * here is the only way a shared space reaches a turn. Hidden when nothing is shared with the person.
 */
export function SharedSpacesPicker({ target }: { target: SharedSpacesTarget }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const conversationId = "conversationId" in target ? target.conversationId : undefined;
  const shares = useQuery(trpc.spaces.shares.queryOptions());
  const added = useQuery({
    ...trpc.conversations.spaces.queryOptions({ id: conversationId ?? "" }),
    enabled: conversationId !== undefined,
  });
  const set = useMutation(
    trpc.conversations.setSpaces.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.conversations.spaces.queryKey({ id: conversationId }) });
        // Adding a space to a chat is seeing that it was shared: its notice goes.
        void qc.invalidateQueries({ queryKey: trpc.spaces.shareNotices.queryKey() });
      },
    }),
  );
  const withMe = shares.data?.withMe ?? [];
  if (!withMe.length) return null;
  const current = "pending" in target ? target.pending : (added.data?.spaces ?? []);
  const toggle = (space: string, on: boolean) => {
    const next = on ? [...current, space] : current.filter((s) => s !== space);
    if ("pending" in target) target.onPending(next);
    else set.mutate({ id: target.conversationId, spaces: next });
  };
  return (
    <details className="relative text-sm" data-testid="shared-spaces-picker">
      <summary className="cursor-pointer select-none text-zinc-500">
        Shared{current.length ? ` (${current.length})` : ""}
      </summary>
      <fieldset className="fixed inset-x-3 z-10 sm:absolute sm:inset-x-auto sm:right-0 mt-1 min-w-56 space-y-1 rounded border border-zinc-300 bg-white p-2 shadow dark:border-zinc-700 dark:bg-zinc-900">
        <legend className="sr-only">Spaces shared with you that this conversation also recalls from</legend>
        {withMe.map((s) => (
          <label key={s.space} className="flex items-center gap-2 whitespace-nowrap">
            <input
              type="checkbox"
              checked={current.includes(s.space)}
              disabled={set.isPending || added.isLoading}
              onChange={(e) => toggle(s.space, e.target.checked)}
            />
            <span>
              {s.name}{" "}
              <span className="text-zinc-500">
                ({s.ownerName}’s, {SHARE_MODE_LABEL[s.mode]})
              </span>
            </span>
          </label>
        ))}
        {"pending" in target && (
          <p className="max-w-64 whitespace-normal text-xs text-zinc-500">Added when you send the first message.</p>
        )}
      </fieldset>
    </details>
  );
}
