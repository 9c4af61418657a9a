"use client";

import { ErrorAlert, SettingsSection } from "../_ui/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { MemorySharing } from "./memory-sharing";
import { BTN_MD as BTN, BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";

type ProviderId = "llama" | "openai" | "anthropic";
type Source = "settings" | "env" | "default" | "detected" | null;

const SOURCE: Record<string, string> = {
  settings: "saved here",
  env: "from environment",
  default: "default",
  detected: "detected on this machine",
};

function SourceTag({ source }: { source: Source }) {
  if (!source) return null;
  return (
    <span className="ml-1 rounded bg-zinc-200 px-1 text-[10px] font-normal uppercase tracking-wide text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400">
      {SOURCE[source]}
    </span>
  );
}

/** Edits to send: only fields the person changed. Keys: "" clears a saved key; absent keeps it. */
interface Draft {
  active?: ProviderId | null;
  openai: { baseUrl?: string; apiKey?: string; model?: string };
  anthropic: { apiKey?: string; model?: string; baseUrl?: string };
  llama: { modelPath?: string };
  timeoutSec?: string;
  maxTokens?: string;
}
const emptyDraft = (): Draft => ({ openai: {}, anthropic: {}, llama: {} });

/**
 * Settings → Providers: which provider answers chat, and each provider's endpoint, key and model. Values
 * saved here win over environment variables; "Use environment only" forgets them. Keys are write-only:
 * the page only learns whether one is set.
 */
export function ProvidersSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const status = useQuery(trpc.providers.status.queryOptions());
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [testResult, setTestResult] = useState<{ ok: boolean; text: string } | null>(null);

  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.providers.status.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.chat.status.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.privacy.status.queryKey() });
  };
  const save = useMutation(
    trpc.providers.save.mutationOptions({
      onSuccess: () => {
        setDraft(emptyDraft());
        setError(null);
        setNotice("Saved.");
        refresh();
      },
      onError: (e) => {
        setNotice(null);
        setError(e.message);
      },
    }),
  );
  const reset = useMutation(
    trpc.providers.reset.mutationOptions({
      onSuccess: () => {
        setDraft(emptyDraft());
        setError(null);
        setNotice("Saved provider settings removed: the environment decides again.");
        refresh();
      },
    }),
  );
  const test = useMutation(
    trpc.providers.test.mutationOptions({
      onSuccess: (r) =>
        setTestResult(
          r.ok
            ? { ok: true, text: `${r.provider} answered in ${r.ms} ms (${r.model}): “${r.reply}”` }
            : { ok: false, text: r.error ?? "failed" },
        ),
      onError: (e) => setTestResult({ ok: false, text: e.message }),
    }),
  );

  const s = status.data;
  if (!s)
    return (
      <section
        id="providers"
        aria-labelledby="providers-heading"
        className="rounded border border-zinc-200 p-4 dark:border-zinc-800"
        data-testid="providers-section"
      >
        <h2 id="providers-heading" className="text-lg font-semibold">
          Providers
        </h2>
        {/* A member may not read the household's providers (issue 48: the card was empty). */}
        {status.error && (
          <div className="mt-1 space-y-3">
            <p className="text-sm text-zinc-500" data-testid="providers-admin-only">
              The models that answer chat, and their keys, are the household&apos;s: an admin sets them up. Which of
              your memories may go to each provider is yours to choose:
            </p>
            <MemorySharing />
          </div>
        )}
      </section>
    );
  const p = Object.fromEntries(s.providers.map((x) => [x.id, x])) as Record<ProviderId, (typeof s.providers)[number]>;
  const active = draft.active !== undefined ? draft.active : s.active;

  const set = <K extends "openai" | "anthropic" | "llama">(section: K, field: keyof Draft[K], value: string) =>
    setDraft((d) => ({ ...d, [section]: { ...d[section], [field]: value } }));
  const val = <K extends "openai" | "anthropic" | "llama">(
    section: K,
    field: keyof Draft[K],
    current: string | null | undefined,
  ) => (draft[section][field] as string | undefined) ?? current ?? "";

  const clean = <T extends Record<string, string | undefined>>(o: T) => (Object.keys(o).length ? o : undefined);
  // The form's values as a settings patch: what Save stores, and what Test tries before saving.
  const patch = () => ({
    ...(draft.active !== undefined ? { active: draft.active } : {}),
    openai: clean(draft.openai),
    anthropic: clean(draft.anthropic),
    llama: clean(draft.llama),
    ...(draft.timeoutSec !== undefined
      ? { timeoutSec: draft.timeoutSec === "" ? null : Number(draft.timeoutSec) }
      : {}),
    ...(draft.maxTokens !== undefined ? { maxTokens: draft.maxTokens === "" ? null : Number(draft.maxTokens) } : {}),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setTestResult(null);
    save.mutate(patch());
  };
  const dirty = JSON.stringify(draft) !== JSON.stringify(emptyDraft());

  const keyField = (section: "openai" | "anthropic", id: string, label: string) => {
    const info = p[section];
    return (
      <div>
        <label htmlFor={id} className="block text-sm font-medium">
          {label}
          <SourceTag source={info.apiKeySource} />
        </label>
        <div className="flex gap-1">
          <input
            id={id}
            type="password"
            autoComplete="off"
            value={draft[section].apiKey ?? ""}
            onChange={(e) => set(section, "apiKey", e.target.value)}
            placeholder={info.apiKeySet ? "•••••••• (set; type to replace)" : "not set"}
            className={INPUT}
          />
          {info.apiKeySource === "settings" && (
            <button type="button" className={BTN} onClick={() => save.mutate({ [section]: { apiKey: "" } })}>
              Clear
            </button>
          )}
        </div>
      </div>
    );
  };

  return (
    <SettingsSection
      anchor="providers"
      headingId="providers-heading"
      title="Providers"
      testId="providers-section"
      gap="space-y-4"
      intro={
        <p className="text-sm text-zinc-500">
          The model that answers chat. Memory works the same whichever answers. Values saved here override the
          environment variables (MEMO_PROVIDER, MEMO_OPENAI_BASE_URL, …); API keys stay on this machine and are never
          shown again.
        </p>
      }
    >
      <p
        role="status"
        data-testid="provider-state"
        className={`rounded border px-3 py-2 text-sm ${s.ready ? "border-emerald-300 bg-emerald-50 dark:border-emerald-800 dark:bg-emerald-950" : "border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950"}`}
      >
        {s.ready
          ? `Chat uses ${p[s.active!].label}${p[s.active!].model ? ` · ${p[s.active!].model}` : ""}.`
          : s.problem}
      </p>
      <form onSubmit={onSubmit} aria-label="Provider settings" className="space-y-4">
        <fieldset className="space-y-1">
          <legend className="text-sm font-medium">
            Chat with <SourceTag source={draft.active !== undefined ? "settings" : s.activeSource} />
          </legend>
          <div className="flex flex-wrap gap-4 text-sm">
            {(["llama", "openai", "anthropic"] as const).map((id) => (
              <label key={id} className="flex items-center gap-1">
                <input
                  type="radio"
                  name="active"
                  value={id}
                  checked={active === id}
                  onChange={() => setDraft((d) => ({ ...d, active: id }))}
                />
                {p[id].label}
                {!p[id].configured && <span className="text-xs text-zinc-500">(not set up)</span>}
              </label>
            ))}
            <label className="flex items-center gap-1">
              <input
                type="radio"
                name="active"
                value=""
                checked={active === null}
                onChange={() => setDraft((d) => ({ ...d, active: null }))}
              />
              None (memory commands only)
            </label>
          </div>
        </fieldset>

        <fieldset className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800">
          <legend className="px-1 text-sm font-semibold">OpenAI-compatible endpoint</legend>
          <p className="text-xs text-zinc-500">
            Ollama (http://localhost:11434/v1), LM Studio (http://localhost:1234/v1), llama-server, vLLM, OpenAI
            (https://api.openai.com/v1).
          </p>
          <div className="grid gap-2 sm:grid-cols-2">
            <div>
              <label htmlFor="openai-base" className="block text-sm font-medium">
                Base URL
                <SourceTag source={p.openai.baseUrlSource} />
              </label>
              <input
                id="openai-base"
                value={val("openai", "baseUrl", p.openai.baseUrl)}
                onChange={(e) => set("openai", "baseUrl", e.target.value)}
                placeholder="http://localhost:11434/v1"
                className={INPUT}
              />
            </div>
            <div>
              <label htmlFor="openai-model" className="block text-sm font-medium">
                Model
                <SourceTag source={p.openai.modelSource} />
              </label>
              <input
                id="openai-model"
                value={val("openai", "model", p.openai.model)}
                onChange={(e) => set("openai", "model", e.target.value)}
                placeholder="(the endpoint's first model)"
                className={INPUT}
              />
            </div>
            {keyField("openai", "openai-key", "API key")}
          </div>
        </fieldset>

        <fieldset className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800">
          <legend className="px-1 text-sm font-semibold">Anthropic</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {keyField("anthropic", "anthropic-key", "API key")}
            <div>
              <label htmlFor="anthropic-model" className="block text-sm font-medium">
                Model
                <SourceTag source={p.anthropic.modelSource} />
              </label>
              <input
                id="anthropic-model"
                value={val("anthropic", "model", p.anthropic.model)}
                onChange={(e) => set("anthropic", "model", e.target.value)}
                className={INPUT}
              />
            </div>
          </div>
        </fieldset>

        <fieldset className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800">
          <legend className="px-1 text-sm font-semibold">Local llama.cpp</legend>
          <p className="text-xs text-zinc-500">
            A GGUF chat model on this machine, served by a supervised llama.cpp process on its own port (a native
            llama-server when MEMO_LLAMA_SERVER points at one).
          </p>
          <div>
            <label htmlFor="llama-path" className="block text-sm font-medium">
              GGUF file
              <SourceTag source={p.llama.modelPathSource ?? null} />
            </label>
            <input
              id="llama-path"
              value={val("llama", "modelPath", p.llama.modelPath)}
              onChange={(e) => set("llama", "modelPath", e.target.value)}
              placeholder="/path/to/model.gguf"
              className={INPUT}
            />
          </div>
          {s.local && (
            <p className="text-xs text-zinc-500" data-testid="local-server">
              Local server: {s.local.state}
              {s.local.engine ? ` · ${s.local.engine}` : ""}
              {s.local.lastError && s.local.state !== "ready" ? ` · ${s.local.lastError}` : ""}
            </p>
          )}
        </fieldset>

        <div className="grid gap-2 sm:grid-cols-2">
          <div>
            <label htmlFor="provider-timeout" className="block text-sm font-medium">
              Timeout (seconds without a token)
            </label>
            <input
              id="provider-timeout"
              type="number"
              min={1}
              max={3600}
              value={draft.timeoutSec ?? String(s.timeoutSec)}
              onChange={(e) => setDraft((d) => ({ ...d, timeoutSec: e.target.value }))}
              className={INPUT}
            />
          </div>
          <div>
            <label htmlFor="provider-max-tokens" className="block text-sm font-medium">
              Max reply tokens
            </label>
            <input
              id="provider-max-tokens"
              type="number"
              min={1}
              value={draft.maxTokens ?? (s.maxTokens === null ? "" : String(s.maxTokens))}
              placeholder="provider default"
              onChange={(e) => setDraft((d) => ({ ...d, maxTokens: e.target.value }))}
              className={INPUT}
            />
          </div>
        </div>

        <div className="flex flex-wrap items-center gap-2">
          <button type="submit" className={BTN_PRIMARY} disabled={!dirty || save.isPending}>
            Save
          </button>
          <button
            type="button"
            className={BTN}
            disabled={test.isPending}
            onClick={() => (setTestResult(null), test.mutate(dirty ? { settings: patch() } : {}))}
            title={dirty ? "Tests the values in the form (not saved yet)" : undefined}
          >
            {test.isPending ? "Testing…" : "Test"}
          </button>
          <button type="button" className={BTN} disabled={reset.isPending} onClick={() => reset.mutate()}>
            Use environment only
          </button>
          <span
            aria-live="polite"
            className="text-sm text-emerald-700 dark:text-emerald-400"
            data-testid="providers-notice"
          >
            {notice}
          </span>
        </div>
        {error && <ErrorAlert>{error}</ErrorAlert>}
        {testResult && (
          <p
            role={testResult.ok ? "status" : "alert"}
            data-testid="provider-test"
            className={`rounded border px-3 py-2 text-sm ${testResult.ok ? "border-emerald-300 bg-emerald-50 dark:bg-emerald-950" : "border-red-300 bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-200"}`}
          >
            {testResult.text}
          </p>
        )}
      </form>
      <MemorySharing />
    </SettingsSection>
  );
}
