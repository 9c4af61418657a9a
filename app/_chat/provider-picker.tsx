"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

const SELECT =
  "max-w-48 rounded border border-zinc-300 bg-white px-2 py-0.5 text-sm dark:border-zinc-700 dark:bg-zinc-900";

/** Which provider and model answer: the configured providers, and the models the selected one offers. */
export function ProviderPicker() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const status = useQuery(trpc.providers.status.queryOptions());
  const active = status.data?.providers.find((p) => p.id === status.data?.active);
  const models = useQuery({
    ...trpc.providers.models.queryOptions({ provider: active?.id ?? "openai" }),
    enabled: Boolean(active?.configured && active.modelChoice),
    staleTime: 60_000,
  });
  const select = useMutation(
    trpc.providers.select.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.providers.status.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.chat.status.queryKey() });
      },
    }),
  );
  const configured = status.data?.providers.filter((p) => p.configured) ?? [];
  if (!status.data || configured.length === 0) return null;
  const modelOptions = Array.from(new Set([...(active?.model ? [active.model] : []), ...(models.data?.models ?? [])]));
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 text-sm" data-testid="provider-picker">
      <label className="flex items-center gap-1">
        <span className="text-zinc-500">Provider</span>
        <select
          aria-label="Provider"
          className={SELECT}
          value={active?.configured ? active.id : ""}
          disabled={select.isPending}
          onChange={(e) => select.mutate({ provider: e.target.value as (typeof configured)[number]["id"] })}
        >
          {!active?.configured && <option value="">Choose…</option>}
          {configured.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
      {active?.configured && (
        <label className="flex items-center gap-1">
          <span className="text-zinc-500">Model</span>
          <select
            aria-label="Model"
            className={SELECT}
            value={active.model ?? ""}
            disabled={select.isPending || !active.modelChoice}
            onChange={(e) => select.mutate({ provider: active.id, model: e.target.value })}
            title={models.data?.error ?? undefined}
          >
            {!active.model && <option value="">(endpoint default)</option>}
            {modelOptions.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
