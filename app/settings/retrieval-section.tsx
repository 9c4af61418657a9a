"use client";

import { ErrorAlert } from "../_ui/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { BTN_MD as BTN, BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";
import { TECHNIQUES, type TechniqueKey } from "@/server/memory/retrieval/techniques";
import { useRememberedFlag } from "../_ui/use-remembered";

interface Draft {
  topN: string;
  minConfidence: string;
  minSimilarity: string;
  ftsFloor: string;
  importanceWeight: string;
  fusion: "rrf" | "linear";
  vectorWeight: string;
  ftsWeight: string;
  anchorWeight: string;
  anchorQuery: boolean;
  qualityFilter: boolean;
  contextMessages: string;
  /** The memory techniques: numbers as typed, booleans as checked. */
  techniques: Record<TechniqueKey, string | boolean>;
  neighbourGapMinutes: string;
  packSpeakers: boolean;
  assistantMaxChars: string;
  tokenBudget: string;
  /** The live loop (docs/retrieval.md#the-facts-leg, #the-profile, #provenance). */
  factMinConfidence: string;
  profileTokens: string;
  derivedWeight: string;
  maxWindowShare: string;
}

interface Settings extends Record<TechniqueKey, number | boolean> {
  topN: number;
  minConfidence: number;
  minSimilarity: number;
  ftsFloor: number;
  importanceWeight: number;
  fusion: "rrf" | "linear";
  weights: { vector: number; fts: number; anchor: number };
  anchorQuery: boolean;
  qualityFilter: boolean;
  contextMessages: number;
  neighbourGapMinutes: number;
  packSpeakers: boolean;
  assistantMaxChars: number;
  tokenBudget: number;
  factMinConfidence: number;
  profileTokens: number;
  derivedWeight: number;
  maxWindowShare: number;
}

const toDraft = (s: Settings): Draft => ({
  topN: String(s.topN),
  minConfidence: String(s.minConfidence),
  minSimilarity: String(s.minSimilarity),
  ftsFloor: String(s.ftsFloor),
  importanceWeight: String(s.importanceWeight),
  fusion: s.fusion,
  vectorWeight: String(s.weights.vector),
  ftsWeight: String(s.weights.fts),
  anchorWeight: String(s.weights.anchor),
  anchorQuery: s.anchorQuery,
  qualityFilter: s.qualityFilter,
  contextMessages: String(s.contextMessages),
  techniques: Object.fromEntries(
    TECHNIQUES.map((t) => [t.key, typeof t.off === "boolean" ? Boolean(s[t.key]) : String(s[t.key])]),
  ) as Draft["techniques"],
  neighbourGapMinutes: String(s.neighbourGapMinutes),
  packSpeakers: s.packSpeakers,
  assistantMaxChars: String(s.assistantMaxChars),
  tokenBudget: String(s.tokenBudget),
  factMinConfidence: String(s.factMinConfidence),
  profileTokens: String(s.profileTokens),
  derivedWeight: String(s.derivedWeight),
  maxWindowShare: String(s.maxWindowShare),
});

/** One line of what recall does now: how much it packs, how sure it must be, and which techniques are on. */
export function retrievalSummary(draft: Draft): string {
  const on = TECHNIQUES.filter((t) => {
    const v = draft.techniques[t.key];
    return typeof t.off === "boolean" ? v !== t.off : Number(v) !== t.off;
  }).map((t) => t.label.toLowerCase());
  if (draft.anchorQuery) on.push("anchor query");
  if (draft.qualityFilter) on.push("quality filter");
  if (draft.packSpeakers) on.push("who said what");
  if (Number(draft.factMinConfidence) < 1) on.push("facts on their own evidence");
  if (Number(draft.profileTokens) > 0) on.push(`a profile of ${draft.profileTokens} tokens`);
  return (
    `Up to ${draft.topN} memories per reply at confidence ${draft.minConfidence} or more, within ${draft.tokenBudget} tokens; ` +
    `${draft.fusion === "rrf" ? "reciprocal rank fusion" : "linear fusion"}; on: ${on.length ? on.join(", ") : "nothing else"}.`
  );
}

function NumberField(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onChange: (v: string) => void;
  min: number;
  max?: number;
  step: number;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input
        id={props.id}
        type="number"
        inputMode="decimal"
        min={props.min}
        max={props.max}
        step={props.step}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        className={INPUT}
      />
      <p className="mt-0.5 text-xs text-zinc-500">{props.hint}</p>
    </div>
  );
}

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
  const onSuccess = (r: { settings: Settings; model: string }) => {
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
  const setTechnique = (k: TechniqueKey, v: string | boolean) => {
    setSaved(null);
    setDraft((prev) => (prev ? { ...prev, techniques: { ...prev.techniques, [k]: v } } : prev));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    save.mutate({
      topN: Number(draft.topN),
      minConfidence: Number(draft.minConfidence),
      minSimilarity: Number(draft.minSimilarity),
      ftsFloor: Number(draft.ftsFloor),
      importanceWeight: Number(draft.importanceWeight),
      fusion: draft.fusion,
      weights: { vector: Number(draft.vectorWeight), fts: Number(draft.ftsWeight), anchor: Number(draft.anchorWeight) },
      anchorQuery: draft.anchorQuery,
      qualityFilter: draft.qualityFilter,
      contextMessages: Number(draft.contextMessages),
      ...Object.fromEntries(
        TECHNIQUES.map((t) => {
          const v = draft.techniques[t.key];
          return [t.key, typeof v === "boolean" ? v : Number(v)];
        }),
      ),
      neighbourGapMinutes: Number(draft.neighbourGapMinutes),
      packSpeakers: draft.packSpeakers,
      assistantMaxChars: Number(draft.assistantMaxChars),
      tokenBudget: Number(draft.tokenBudget),
      factMinConfidence: Number(draft.factMinConfidence),
      profileTokens: Number(draft.profileTokens),
      derivedWeight: Number(draft.derivedWeight),
      maxWindowShare: Number(draft.maxWindowShare),
    });
  };
  const error = save.error ?? reset.error ?? q.error;
  const [advanced, setAdvanced] = useRememberedFlag("settings:retrieval-advanced");
  // Counted from the draft, so a setting added or removed elsewhere keeps the count true.
  const fieldCount = draft ? Object.keys(draft).length - 1 + Object.keys(draft.techniques).length : 0;

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
                <NumberField
                  id="rs-topn"
                  label="Memories per reply (top N)"
                  hint={`1–20; default ${d.topN}`}
                  value={draft.topN}
                  onChange={(v) => set("topN", v)}
                  min={1}
                  max={20}
                  step={1}
                />
                <NumberField
                  id="rs-minconf"
                  label="Minimum confidence"
                  hint={`Only memories at least this likely to be relevant (0–1) go into a prompt; 0 packs all; default ${d.minConfidence}`}
                  value={draft.minConfidence}
                  onChange={(v) => set("minConfidence", v)}
                  min={0}
                  max={1}
                  step={0.01}
                />
                <NumberField
                  id="rs-minsim"
                  label="Minimum similarity"
                  hint={`Vector-only results below this are dropped; default ${d.minSimilarity}`}
                  value={draft.minSimilarity}
                  onChange={(v) => set("minSimilarity", v)}
                  min={-1}
                  max={1}
                  step={0.01}
                />
                <NumberField
                  id="rs-ftsfloor"
                  label="FTS floor"
                  hint={`Keyword-only results with a BM25 score below this are dropped; default ${d.ftsFloor}`}
                  value={draft.ftsFloor}
                  onChange={(v) => set("ftsFloor", v)}
                  min={0}
                  step={0.1}
                />
                <NumberField
                  id="rs-impw"
                  label="Importance weight"
                  hint={`score × (1 + weight × importance/5); default ${d.importanceWeight}`}
                  value={draft.importanceWeight}
                  onChange={(v) => set("importanceWeight", v)}
                  min={0}
                  max={5}
                  step={0.05}
                />
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
                <div>
                  <label htmlFor="rs-ctx" className="block text-sm font-medium">
                    Context messages
                  </label>
                  <select
                    id="rs-ctx"
                    value={draft.contextMessages}
                    onChange={(e) => set("contextMessages", e.target.value)}
                    className={INPUT}
                  >
                    {[0, 1, 2, 3].map((n) => (
                      <option key={n}>{n}</option>
                    ))}
                  </select>
                  <p className="mt-0.5 text-xs text-zinc-500">
                    Earlier user messages joined to the query; default {d.contextMessages}.
                  </p>
                </div>
              </div>
              <fieldset className="grid gap-4 sm:grid-cols-3">
                <legend className="mb-1 text-sm font-medium">List weights</legend>
                <NumberField
                  id="rs-wvec"
                  label="Vector"
                  hint={`default ${d.weights.vector}`}
                  value={draft.vectorWeight}
                  onChange={(v) => set("vectorWeight", v)}
                  min={0}
                  max={10}
                  step={0.1}
                />
                <NumberField
                  id="rs-wfts"
                  label="Keyword (FTS)"
                  hint={`default ${d.weights.fts}`}
                  value={draft.ftsWeight}
                  onChange={(v) => set("ftsWeight", v)}
                  min={0}
                  max={10}
                  step={0.1}
                />
                <NumberField
                  id="rs-wanchor"
                  label="Anchor query lists"
                  hint={`default ${d.weights.anchor}`}
                  value={draft.anchorWeight}
                  onChange={(v) => set("anchorWeight", v)}
                  min={0}
                  max={10}
                  step={0.1}
                />
              </fieldset>
              <fieldset className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="technique-settings">
                <legend className="mb-1 text-sm font-medium">
                  Memory techniques{" "}
                  <span className="font-normal text-zinc-500">
                    (each stage of recall; Debug Search switches them for one search to show what they move)
                  </span>
                </legend>
                {TECHNIQUES.map((t) =>
                  typeof t.off === "boolean" ? (
                    <label key={t.key} className="flex items-start gap-2 text-sm">
                      <input
                        type="checkbox"
                        className="mt-1"
                        checked={draft.techniques[t.key] === true}
                        onChange={(e) => setTechnique(t.key, e.target.checked)}
                      />
                      <span>
                        <span className="font-medium">{t.label}</span>
                        <span className="block text-xs text-zinc-500">
                          {t.does}; default {d[t.key] ? "on" : "off"}
                        </span>
                      </span>
                    </label>
                  ) : (
                    <NumberField
                      key={t.key}
                      id={`rs-${t.key}`}
                      label={t.label}
                      hint={`${t.does}; default ${d[t.key]}`}
                      value={String(draft.techniques[t.key])}
                      onChange={(v) => setTechnique(t.key, v)}
                      min={t.min!}
                      max={t.max}
                      step={t.step!}
                    />
                  ),
                )}
                <NumberField
                  id="rs-gap"
                  label="Session gap (minutes)"
                  hint={`Neighbour context: two exchanges at most this far apart are one session; default ${d.neighbourGapMinutes}`}
                  value={draft.neighbourGapMinutes}
                  onChange={(v) => set("neighbourGapMinutes", v)}
                  min={1}
                  max={1440}
                  step={1}
                />
              </fieldset>
              <fieldset className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
                <legend className="mb-1 text-sm font-medium">Packing</legend>
                <NumberField
                  id="rs-budget"
                  label="Token budget"
                  hint={`Size of the memory block in the system prompt; default ${d.tokenBudget}`}
                  value={draft.tokenBudget}
                  onChange={(v) => set("tokenBudget", v)}
                  min={50}
                  max={32000}
                  step={50}
                />
                <NumberField
                  id="rs-asstmax"
                  label="Assistant reply cap (characters)"
                  hint={`A packed memory keeps at most this much of the assistant's reply; default ${d.assistantMaxChars}`}
                  value={draft.assistantMaxChars}
                  onChange={(v) => set("assistantMaxChars", v)}
                  min={40}
                  max={8000}
                  step={10}
                />
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
                <NumberField
                  id="rs-factminconf"
                  label="Facts: minimum confidence"
                  hint={`A current fact that matches the question at least this surely is stated on its own (0–1); 1 = off; default ${d.factMinConfidence}`}
                  value={draft.factMinConfidence}
                  onChange={(v) => set("factMinConfidence", v)}
                  min={0}
                  max={1}
                  step={0.01}
                />
                <NumberField
                  id="rs-profiletokens"
                  label="Profile (tokens)"
                  hint={`Your most important current facts, carried by every reply within this many tokens; 0 = off; default ${d.profileTokens}`}
                  value={draft.profileTokens}
                  onChange={(v) => set("profileTokens", v)}
                  min={0}
                  max={2000}
                  step={10}
                />
                <NumberField
                  id="rs-derivedweight"
                  label="Restated replies' weight"
                  hint={`A stored reply that restated what it was given counts this much plus what it added; 1 = off; default ${d.derivedWeight}`}
                  value={draft.derivedWeight}
                  onChange={(v) => set("derivedWeight", v)}
                  min={0}
                  max={1}
                  step={0.05}
                />
                <NumberField
                  id="rs-maxwindowshare"
                  label="Date window: largest share"
                  hint={`A date the question names that covers more than this share of the space is no signal; 1 = always a signal; default ${d.maxWindowShare}`}
                  value={draft.maxWindowShare}
                  onChange={(v) => set("maxWindowShare", v)}
                  min={0.01}
                  max={1}
                  step={0.01}
                />
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
