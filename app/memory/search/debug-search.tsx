"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../../_trpc/client";
import { DebugSearchResults } from "./debug-search-results";
import { SharedSpaceOptions } from "../../_ui/ui";
import { candidatePool, rankDepth } from "@/server/memory/retrieval/query-builder";
import type { TechniqueOverrides } from "@/server/memory/retrieval/techniques";
import { INPUT, TechniqueOptions } from "./debug-search-techniques";

/**
 * Memory → Search: one search with every pipeline option at hand (space, k, pool, date, context, fusion,
 * techniques for this search only); what it found is shown by DebugSearchResults (debug-search-results.tsx).
 */
export function DebugSearch() {
  const trpc = useTRPC();
  const [draft, setDraft] = useState("");
  const [space, setSpace] = useState("personal");
  const [k, setK] = useState(10);
  const [pool, setPool] = useState("");
  const [context, setContext] = useState("");
  const [contextMessages, setContextMessages] = useState<number | undefined>(undefined);
  const [anchorQuery, setAnchorQuery] = useState<boolean | undefined>(undefined);
  const [qualityFilter, setQualityFilter] = useState<boolean | undefined>(undefined);
  const [fusion, setFusion] = useState<"rrf" | "linear" | undefined>(undefined);
  // The turn's date (browser-local date-time; empty = now): what "last week" resolves against.
  const [asOf, setAsOf] = useState("");
  // Memory techniques switched for this search only (undefined: the saved setting).
  const [techniques, setTechniques] = useState<TechniqueOverrides>({});
  const [minConfidence, setMinConfidence] = useState("");
  const [submitted, setSubmitted] = useState<string | null>(null);
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const shares = useQuery(trpc.spaces.shares.queryOptions());
  const poolN = pool.trim() === "" ? undefined : Math.max(1, Math.min(500, Math.round(Number(pool)) || 1));
  const minConfidenceN =
    minConfidence.trim() === "" || Number.isNaN(Number(minConfidence))
      ? undefined
      : Math.max(0, Math.min(1, Number(minConfidence)));
  const at = asOf && !Number.isNaN(Date.parse(asOf)) ? new Date(asOf) : undefined;
  const input = {
    query: submitted ?? "",
    space,
    // The zone's offset on the turn's date, not today's: "yesterday" across a DST change is still one local day.
    tzOffsetMinutes: -(at ?? new Date()).getTimezoneOffset(),
    ...(at ? { at: at.toISOString() } : {}),
    k,
    context: context
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean),
    options: {
      ...(qualityFilter === undefined ? {} : { qualityFilter }),
      ...(anchorQuery === undefined ? {} : { anchorQuery }),
      ...(contextMessages === undefined ? {} : { contextMessages }),
      ...(fusion === undefined ? {} : { fusion }),
      ...(poolN === undefined ? {} : { pool: poolN }),
      ...(minConfidenceN === undefined ? {} : { minConfidence: minConfidenceN }),
      ...techniques,
    },
  };
  const result = useQuery({ ...trpc.memory.search.queryOptions(input), enabled: Boolean(submitted?.trim()) });
  const data = result.data;
  // The saved settings: the "default" choices show their real values before the first search too.
  const saved = useQuery(trpc.retrievalSettings.get.queryOptions());
  const current = data?.settings ?? saved.data?.settings;
  const savedSettings = saved.data?.settings;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(draft);
  };
  const defaultPool = candidatePool(rankDepth(k));

  return (
    <div className="space-y-4">
      <form
        onSubmit={onSubmit}
        className="space-y-3 rounded border border-zinc-200 p-4 dark:border-zinc-800"
        aria-label="Search memories"
      >
        <div className="flex flex-col gap-2 sm:flex-row">
          <label className="sr-only" htmlFor="q">
            Query
          </label>
          <input
            id="q"
            name="query"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="What do you want to recall?"
            className="flex-1 rounded border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
          <button
            type="submit"
            className="rounded bg-zinc-900 px-4 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900"
          >
            Search
          </button>
        </div>
        <fieldset className="flex min-w-0 flex-wrap items-center gap-x-4 gap-y-2 text-sm">
          <legend className="sr-only">Pipeline options</legend>
          <label className="flex min-w-0 max-w-full items-center gap-2">
            <span className="shrink-0">Space</span>
            <select value={space} onChange={(e) => setSpace(e.target.value)} className={`min-w-0 max-w-full ${INPUT}`}>
              {(spaces.data ?? ["personal"]).map((s) => (
                <option key={s}>{s}</option>
              ))}
              <SharedSpaceOptions spaces={shares.data?.withMe ?? []} />
            </select>
          </label>
          <label className="flex items-center gap-2">
            k
            <input
              type="number"
              min={1}
              max={100}
              value={k}
              onChange={(e) => setK(Math.max(1, Math.min(100, Number(e.target.value) || 1)))}
              className={`w-16 ${INPUT}`}
            />
          </label>
          <label
            className="flex items-center gap-2"
            title="Candidates each list (vector, keyword) returns before fusion; empty: min(max(max(k, 10)×5, 20), 100): every k up to 10 ranks alike, as the chat does"
          >
            Candidate pool
            <input
              type="number"
              min={1}
              max={500}
              value={pool}
              placeholder={`auto (${defaultPool})`}
              onChange={(e) => setPool(e.target.value)}
              className={`w-28 ${INPUT}`}
            />
          </label>
          <label
            className="flex items-center gap-2"
            title="The turn's date: what “last week”, “in May” and “recently” resolve against. Empty: now (to search an imported conversation as of its own date, pick that date)"
          >
            As of
            <input type="datetime-local" value={asOf} onChange={(e) => setAsOf(e.target.value)} className={INPUT} />
          </label>
          <label
            className="flex items-center gap-2"
            title="How many earlier user messages (from the box below) join the query"
          >
            Context messages
            <select
              value={contextMessages === undefined ? "" : String(contextMessages)}
              onChange={(e) => setContextMessages(e.target.value === "" ? undefined : Number(e.target.value))}
              className={INPUT}
            >
              <option value="">default ({current?.contextMessages ?? "…"})</option>
              {[0, 1, 2, 3].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-2">
            Fusion
            <select
              value={fusion ?? ""}
              onChange={(e) => setFusion(e.target.value === "" ? undefined : (e.target.value as "rrf" | "linear"))}
              className={INPUT}
            >
              <option value="">default{current ? ` (${current.fusion})` : ""}</option>
              <option value="rrf">RRF</option>
              <option value="linear">linear</option>
            </select>
          </label>
          <label
            className="flex items-center gap-2"
            title="A second query of the message's first 5 words, for messages longer than 7 words"
          >
            <input
              type="checkbox"
              checked={anchorQuery ?? current?.anchorQuery ?? false}
              onChange={(e) => setAnchorQuery(e.target.checked)}
            />
            Anchor query
          </label>
          <label
            className="flex items-center gap-2"
            title="Drop vector-only results below the minimum similarity and keyword-only results below the FTS floor"
          >
            <input
              type="checkbox"
              checked={qualityFilter ?? data?.settings.qualityFilter ?? false}
              onChange={(e) => setQualityFilter(e.target.checked)}
            />
            Quality filter
          </label>
        </fieldset>
        <TechniqueOptions
          techniques={techniques}
          setTechniques={setTechniques}
          savedSettings={savedSettings}
          minConfidence={minConfidence}
          setMinConfidence={setMinConfidence}
        />
        <label className="block text-sm">
          Conversation context (earlier user messages, one per line)
          <textarea
            value={context}
            onChange={(e) => setContext(e.target.value)}
            rows={2}
            className={`mt-1 w-full ${INPUT}`}
          />
        </label>
      </form>

      {result.error && (
        <p
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {result.error.message}
        </p>
      )}
      {result.isFetching && <p className="text-sm text-zinc-500">Searching…</p>}

      {data && <DebugSearchResults data={data} />}
    </div>
  );
}
