"use client";

import { ErrorAlert, Field } from "../_ui/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";

interface Draft {
  decayEnabled: boolean;
  decayTime: string;
  consolidateEnabled: boolean;
  afterDecay: boolean;
  consolidateTime: string;
  threshold: string;
  maxPerSpace: string;
}

interface Loaded {
  settings: {
    decay: { enabled: boolean; time: string };
    consolidate: { enabled: boolean; time: string; maxPerSpace: number };
  };
  model: string | null;
  threshold: number;
}

const toDraft = (d: Loaded): Draft => ({
  decayEnabled: d.settings.decay.enabled,
  decayTime: d.settings.decay.time,
  consolidateEnabled: d.settings.consolidate.enabled,
  afterDecay: d.settings.consolidate.time === "after-decay",
  consolidateTime: d.settings.consolidate.time === "after-decay" ? "03:30" : d.settings.consolidate.time,
  threshold: String(d.threshold),
  maxPerSpace: String(d.settings.consolidate.maxPerSpace),
});

/**
 * Settings → Background jobs (admins): when decay and consolidation run, and consolidation's parameters
 * (docs/storage.md#what-each-job-may-change). The household's schedule; each person's decay days and kinds are
 * their own, in Lifetime of your memories (lifetime-section.tsx). A member sees one line saying so.
 */
export function JobsSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.access.me.queryOptions());
  const admin = me.data ? me.data.role === "admin" : null;
  const q = useQuery({ ...trpc.jobs.settings.queryOptions(), enabled: admin === true });
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    if (q.data && draft === null) setDraft(toDraft(q.data));
  }, [q.data, draft]);
  const save = useMutation(
    trpc.jobs.saveSettings.mutationOptions({
      onSuccess: (r) => {
        setSaved(`Saved. Next decay: ${r.next.decay ? new Date(r.next.decay).toLocaleString() : "not scheduled"}.`);
        void qc.invalidateQueries({ queryKey: trpc.jobs.settings.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.jobs.status.queryKey() });
      },
      onError: () => setSaved(null),
    }),
  );
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => {
    setSaved(null);
    setDraft((prev) => (prev ? { ...prev, [k]: v } : prev));
  };
  const model = q.data?.model ?? null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    save.mutate({
      decay: {
        enabled: draft.decayEnabled,
        time: draft.decayTime,
      },
      consolidate: {
        enabled: draft.consolidateEnabled,
        time: draft.afterDecay ? "after-decay" : draft.consolidateTime,
        maxPerSpace: Number(draft.maxPerSpace),
        ...(model ? { thresholds: { [model]: Number(draft.threshold) } } : {}),
      },
    });
  };
  const error = save.error ?? q.error;
  if (admin === null && !me.error) return null;
  if (admin === false)
    return (
      <section
        id="jobs"
        aria-labelledby="jobs-settings-heading"
        className="space-y-1 rounded border border-zinc-200 p-4 dark:border-zinc-800"
        data-testid="jobs-section"
      >
        <h2 id="jobs-settings-heading" className="text-lg font-semibold">
          Background jobs
        </h2>
        <p className="text-sm text-zinc-500">
          Decay and consolidation run on the household&apos;s schedule, which an admin sets. How long your memories live
          is yours: Lifetime of your memories, above.
        </p>
      </section>
    );

  return (
    <section
      id="jobs"
      aria-labelledby="jobs-settings-heading"
      className="space-y-3 rounded border border-zinc-200 p-4 dark:border-zinc-800"
      data-testid="jobs-section"
    >
      <div>
        <h2 id="jobs-settings-heading" className="text-lg font-semibold">
          Background jobs
        </h2>
        <p className="text-sm text-zinc-500">
          Daily decay of unused memories and consolidation of near-duplicates, at the server&apos;s local time. Run them
          now from Memory → Analytics.
        </p>
      </div>
      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {!draft && !error && <p className="text-sm text-zinc-500">Loading…</p>}
      {draft && (
        <form onSubmit={submit} aria-label="Background job settings" className="space-y-4">
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Decay</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={draft.decayEnabled}
                onChange={(e) => set("decayEnabled", e.target.checked)}
              />
              Run daily
            </label>
            <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <Field id="jobs-decay-time" label="At" hint="24-hour time; default 03:00">
                <input
                  id="jobs-decay-time"
                  type="time"
                  required
                  value={draft.decayTime}
                  onChange={(e) => set("decayTime", e.target.value)}
                  className={INPUT}
                />
              </Field>
            </div>
            <p className="text-xs text-zinc-500">
              Each run applies each person&apos;s own lifetime rules (Lifetime of your memories, above).
            </p>
          </fieldset>
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Consolidation</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={draft.consolidateEnabled}
                onChange={(e) => set("consolidateEnabled", e.target.checked)}
              />
              Merge near-duplicate memories daily (needs a chat provider)
            </label>
            <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <Field id="jobs-cons-time" label="At" hint="Or right after decay (default)">
                <label className="mb-1 flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={draft.afterDecay}
                    onChange={(e) => set("afterDecay", e.target.checked)}
                  />
                  Right after decay
                </label>
                <input
                  id="jobs-cons-time"
                  type="time"
                  disabled={draft.afterDecay}
                  value={draft.consolidateTime}
                  onChange={(e) => set("consolidateTime", e.target.value)}
                  className={INPUT}
                />
              </Field>
              <Field
                id="jobs-threshold"
                label="Similarity threshold"
                hint={
                  model
                    ? `Cosine ≥ this merges; for ${model}; default 0.92`
                    : "Set once the store has an embedding model; default 0.92"
                }
              >
                <input
                  id="jobs-threshold"
                  type="number"
                  min={0.5}
                  max={1}
                  step={0.01}
                  disabled={!model}
                  value={draft.threshold}
                  onChange={(e) => set("threshold", e.target.value)}
                  className={INPUT}
                />
              </Field>
              <Field id="jobs-max" label="Memories compared per space" hint="The most recent ones; default 200">
                <input
                  id="jobs-max"
                  type="number"
                  min={2}
                  max={2000}
                  step={1}
                  required
                  value={draft.maxPerSpace}
                  onChange={(e) => set("maxPerSpace", e.target.value)}
                  className={INPUT}
                />
              </Field>
            </div>
          </fieldset>
          <div className="flex flex-wrap items-center gap-2">
            <button type="submit" className={BTN_PRIMARY} disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save job settings"}
            </button>
            <span
              aria-live="polite"
              className="text-sm text-emerald-700 dark:text-emerald-400"
              data-testid="jobs-saved"
            >
              {saved}
            </span>
          </div>
        </form>
      )}
    </section>
  );
}
