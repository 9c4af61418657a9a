"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";
import { CARD } from "../_ui/styles";

const BTN =
  "rounded border border-zinc-300 px-2 py-0.5 text-xs font-medium hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";

/**
 * What Memo keeps, and for how long (Analytics and the Manager): the lifetime policy per kind (set in
 * Settings → Background jobs), and everything decay will soft-delete or purge within 7 days, with why,
 * each kept with one click (restored if deleted, and pinned so decay never touches it).
 */
export function LifetimePanel({ space, compact = false }: { space?: string; compact?: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.analytics.lifetime.queryOptions(space ? { space } : undefined));
  const keep = useMutation(
    trpc.analytics.keep.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.analytics.lifetime.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.analytics.overview.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.manager.list.queryKey() });
      },
    }),
  );
  if (q.error)
    return (
      <p role="alert" className="text-sm text-red-700">
        {q.error.message}
      </p>
    );
  if (!q.data) return null;
  const { kinds, expiring } = q.data;
  return (
    <section className={`${CARD} space-y-2`} aria-labelledby="lifetime-heading" data-testid="lifetime-panel">
      <h2 id="lifetime-heading" className="text-sm font-semibold">
        What Memo keeps, and for how long
      </h2>
      {!compact && (
        <ul className="space-y-0.5 text-xs" data-testid="lifetime-policy">
          {kinds.map((k) => (
            <li key={k.kind}>
              <span className="inline-block w-24 font-medium">{k.kind}</span>
              {k.summary}
              {k.consolidated ? "" : "; never consolidated"}
            </li>
          ))}
        </ul>
      )}
      {compact && (
        <p className="text-xs text-zinc-500" data-testid="lifetime-policy">
          Decays:{" "}
          {kinds
            .filter((k) => k.decays)
            .map((k) => k.kind)
            .join(", ") || "nothing"}{" "}
          · kept until you delete them:{" "}
          {kinds
            .filter((k) => !k.decays && k.kind !== "document")
            .map((k) => k.kind)
            .join(", ") || "nothing"}{" "}
          · document chunks live with their document.
        </p>
      )}
      <h3 className="text-xs font-semibold">
        Removed within 7 days: {expiring.softDeletes} soft-delete{expiring.softDeletes === 1 ? "" : "s"} by decay,{" "}
        {expiring.purges} purge{expiring.purges === 1 ? "" : "s"} from the trash
      </h3>
      {expiring.items.length === 0 ? (
        <p className="text-xs text-zinc-500">Nothing.</p>
      ) : (
        <ul className="max-h-72 space-y-1 overflow-auto text-sm" data-testid="expiring-list">
          {expiring.items.map((m) => (
            <li key={m.id} className="flex flex-wrap items-baseline gap-x-2" data-testid="expiring-item">
              <span className="shrink-0 tabular-nums text-xs text-zinc-500">{m.on}</span>
              <span className="shrink-0 text-xs font-medium">{m.action === "purge" ? "purged" : "soft-deleted"}</span>
              <span className="min-w-0 flex-1 truncate" title={m.content}>
                {m.content}
              </span>
              <span className="w-full text-xs text-zinc-500">{m.reason}</span>
              <button
                type="button"
                className={BTN}
                disabled={keep.isPending}
                onClick={() => keep.mutate({ ids: [m.id] })}
                data-testid="keep-memory"
              >
                Keep (pin)
              </button>
            </li>
          ))}
        </ul>
      )}
      {keep.error && (
        <p role="alert" className="text-xs text-red-700">
          {keep.error.message}
        </p>
      )}
    </section>
  );
}
