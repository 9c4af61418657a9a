"use client";

import { ErrorAlert } from "../_ui/ui";
import { UnkeptNotice } from "./unkept-notice";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { BTN_MD as BTN, BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";
import type { RetrievalSettings } from "@/server/memory/retrieval/settings";
import type { RetrievalFieldPath } from "@/server/memory/retrieval/settings-fields";
import { useRememberedFlag } from "../_ui/use-remembered";
import {
  draftFieldCount,
  draftPatch,
  retrievalSummary,
  toDraft,
  type RetrievalDraft as Draft,
} from "./retrieval-draft";
import { DeclaredFields } from "./retrieval-fields";

/** Settings → Retrieval: the parameters of hybrid search, saved per embedding model. */
export function RetrievalSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.retrievalSettings.get.queryOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    if (q.data && draft === null) setDraft(toDraft(q.data.settings));
  }, [q.data, draft]);
  const onSuccess = (r: { settings: RetrievalSettings; model: string }) => {
    setDraft(toDraft(r.settings));
    setSaved(`Saved for ${r.model}.`);
    void qc.invalidateQueries({ queryKey: trpc.retrievalSettings.get.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.memory.search.queryKey() });
  };
  const save = useMutation(trpc.retrievalSettings.save.mutationOptions({ onSuccess, onError: () => setSaved(null) }));
  const reset = useMutation(trpc.retrievalSettings.reset.mutationOptions({ onSuccess, onError: () => setSaved(null) }));
  const d = q.data?.defaults;
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => {
    setSaved(null);
    setDraft((prev) => (prev ? { ...prev, [k]: v } : prev));
  };
  const setNumber = (path: RetrievalFieldPath, v: string) => {
    setSaved(null);
    setDraft((prev) => (prev ? { ...prev, numbers: { ...prev.numbers, [path]: v } } : prev));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    save.mutate(draftPatch(draft));
  };
  const error = save.error ?? reset.error ?? q.error;
  const [advanced, setAdvanced] = useRememberedFlag("settings:retrieval-advanced");
  const fieldCount = draft ? draftFieldCount(draft) : 0;
  return (
    <section
      id="retrieval"
      aria-labelledby="retrieval-heading"
      className="space-y-3 rounded border border-zinc-200 p-4 dark:border-zinc-800"
      data-testid="retrieval-section"
    >
      <div>
        <h2 id="retrieval-heading" className="text-lg font-semibold">
          Retrieval
        </h2>
        <p className="text-sm text-zinc-500">
          How memories are recalled into chat. Saved per embedding model
          {q.data ? (
            <>
              {" "}
              — now <strong className="break-all">{q.data.model}</strong>
            </>
          ) : null}
          . Try changes on Debug Search first.
        </p>
      </div>
      <UnkeptNotice settings={["retrieval:"]} />
      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {!draft && !error && <p className="text-sm text-zinc-500">Loading…</p>}
      {draft && d && (
        <form onSubmit={submit} aria-label="Retrieval settings" className="space-y-4">
          <p className="text-sm" data-testid="retrieval-summary">
            {retrievalSummary(draft)}
          </p>
          {/* Every field behind one disclosure (open or closed as this browser last left it). */}
          <details
            open={advanced}
            onToggle={(e) => setAdvanced(e.currentTarget.open)}
            className="rounded border border-zinc-200 dark:border-zinc-800"
            data-testid="retrieval-advanced"
          >
            <summary className="cursor-pointer select-none px-3 py-2 text-sm font-medium">
              Advanced: {fieldCount} settings, each with its default
            </summary>
            <div className="space-y-4 border-t border-zinc-200 p-3 dark:border-zinc-800">
              <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
                <DeclaredFields group="recall" values={draft.numbers} defaults={d} onChange={setNumber} />
                <div>
                  <label htmlFor="rs-fusion" className="block text-sm font-medium">
                    Fusion
                  </label>
                  <select
                    id="rs-fusion"
                    value={draft.fusion}
                    onChange={(e) => set("fusion", e.target.value as Draft["fusion"])}
                    className={INPUT}
                  >
                    <option value="rrf">Reciprocal Rank Fusion</option>
                    <option value="linear">Linear (score-normalised)</option>
                  </select>
                  <p className="mt-0.5 text-xs text-zinc-500">
                    Default {d.fusion === "rrf" ? "RRF" : "linear"} for this model.
                  </p>
                </div>
                <DeclaredFields group="query" values={draft.numbers} defaults={d} onChange={setNumber} />
              </div>
              <fieldset className="grid gap-4 sm:grid-cols-3">
                <legend className="mb-1 text-sm font-medium">List weights</legend>
                <DeclaredFields group="weights" values={draft.numbers} defaults={d} onChange={setNumber} />
              </fieldset>
              <fieldset className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="technique-settings">
                <legend className="mb-1 text-sm font-medium">
                  Memory techniques{" "}
                  <span className="font-normal text-zinc-500">
                    (each stage of recall; Debug Search switches them for one search to show what they move)
                  </span>
                </legend>
                <DeclaredFields group="techniques" values={draft.numbers} defaults={d} onChange={setNumber} />
              </fieldset>
              <fieldset className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
                <legend className="mb-1 text-sm font-medium">Packing</legend>
                <DeclaredFields group="packing" values={draft.numbers} defaults={d} onChange={setNumber} />
                <label className="flex items-start gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="mt-1"
                    checked={draft.packSpeakers}
                    onChange={(e) => set("packSpeakers", e.target.checked)}
                  />
                  <span>
                    <span className="font-medium">Who said what</span>
                    <span className="block text-xs text-zinc-500">
                      Label the person's words and the assistant's reply; default {d.packSpeakers ? "on" : "off"}
                    </span>
                  </span>
                </label>
              </fieldset>
              <fieldset className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="live-loop-settings">
                <legend className="mb-1 text-sm font-medium">
                  Facts and the live loop{" "}
                  <span className="font-normal text-zinc-500">(what Memo knows, and its own replies as memories)</span>
                </legend>
                <DeclaredFields group="live-loop" values={draft.numbers} defaults={d} onChange={setNumber} />
              </fieldset>
              <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
                <label className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    checked={draft.anchorQuery}
                    onChange={(e) => set("anchorQuery", e.target.checked)}
                  />
                  Anchor query (first 5 words of long messages; default {d.anchorQuery ? "on" : "off"})
                </label>
                <label className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    checked={draft.qualityFilter}
                    onChange={(e) => set("qualityFilter", e.target.checked)}
                  />
                  Quality filter (default {d.qualityFilter ? "on" : "off"})
                </label>
              </div>
            </div>
          </details>
          <div className="flex flex-wrap items-center gap-2">
            <button type="submit" className={BTN_PRIMARY} disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save retrieval settings"}
            </button>
            <button type="button" className={BTN} disabled={reset.isPending} onClick={() => reset.mutate()}>
              Reset to model defaults
            </button>
            <span
              aria-live="polite"
              className="text-sm text-emerald-700 dark:text-emerald-400"
              data-testid="retrieval-saved"
            >
              {saved}
            </span>
          </div>
        </form>
      )}
    </section>
  );
}
