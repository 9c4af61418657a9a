"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

const KINDS = [
  ["chat", "Chat exchanges"],
  ["consolidated", "Consolidated (merged) memories"],
  ["remember", "/remember (pinned facts)"],
  ["import", "Imported (ChatGPT export, Memo import)"],
] as const;

/**
 * Settings → Background jobs → lifetime per kind: which of your kinds decay (each person's own: the decay job
 * applies everyone's). Document chunks always live with their document.
 */
export function LifetimeSettings() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.jobs.lifetime.queryOptions());
  const save = useMutation(
    trpc.jobs.saveLifetime.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.jobs.lifetime.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.jobs.settings.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.analytics.lifetime.queryKey() });
      },
    }),
  );
  const lifetime = q.data?.lifetime;
  if (!lifetime) return null;
  return (
    <fieldset
      className="space-y-1 rounded border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="lifetime-settings"
    >
      <legend className="px-1 text-sm font-medium">Lifetime by kind</legend>
      {KINDS.map(([kind, label]) => (
        <label key={kind} className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={lifetime[kind] === "decay"}
            disabled={save.isPending}
            onChange={(e) => save.mutate({ lifetime: { [kind]: e.target.checked ? "decay" : "keep" } })}
            data-testid={`lifetime-${kind}`}
          />
          {label} decay when not recalled
        </label>
      ))}
      <p className="text-xs text-zinc-500">
        Unchecked kinds are kept until you delete them. Document chunks never decay one by one: a document lives until
        you delete it, and its chunks go with it. Pinned memories never decay.
      </p>
      {save.error && (
        <p role="alert" className="text-xs text-red-700">
          {save.error.message}
        </p>
      )}
    </fieldset>
  );
}
