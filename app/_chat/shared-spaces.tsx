"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

/**
 * In the chat toolbar, once a conversation exists: the spaces other people share with this person, each a
 * checkbox that adds it to this conversation's recall (conversations.setSpaces). Adding it here is the only
 * way a shared space reaches a turn. Hidden when nothing is shared with the person.
 */
export function SharedSpacesPicker({ conversationId }: { conversationId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const shares = useQuery(trpc.spaces.shares.queryOptions());
  const added = useQuery(trpc.conversations.spaces.queryOptions({ id: conversationId }));
  const set = useMutation(
    trpc.conversations.setSpaces.mutationOptions({
      onSuccess: () =>
        void qc.invalidateQueries({ queryKey: trpc.conversations.spaces.queryKey({ id: conversationId }) }),
    }),
  );
  const withMe = shares.data?.withMe ?? [];
  if (!withMe.length) return null;
  const current = added.data?.spaces ?? [];
  const toggle = (space: string, on: boolean) =>
    set.mutate({ id: conversationId, spaces: on ? [...current, space] : current.filter((s) => s !== space) });
  return (
    <details className="relative text-sm" data-testid="shared-spaces-picker">
      <summary className="cursor-pointer select-none text-zinc-500">
        Shared{current.length ? ` (${current.length})` : ""}
      </summary>
      <fieldset className="absolute right-0 z-10 mt-1 min-w-56 space-y-1 rounded border border-zinc-300 bg-white p-2 shadow dark:border-zinc-700 dark:bg-zinc-900">
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
              {s.name} <span className="text-zinc-500">({s.ownerName}’s)</span>
            </span>
          </label>
        ))}
      </fieldset>
    </details>
  );
}
