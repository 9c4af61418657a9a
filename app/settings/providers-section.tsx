"use client";

import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { UnkeptNotice } from "./unkept-notice";
import type { AppRouter } from "@/server/api/root";
import { ErrorAlert, SettingsSection } from "../_ui/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { MemorySharing } from "./memory-sharing";
import { ProviderFamilyFieldset, ProvidersUnreadable, SourceTag } from "./provider-fields";
import { BTN_MD as BTN, BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";

type Family = inferRouterOutputs<AppRouter>["providers"]["status"]["providers"][number];
type ProviderId = Family["id"];
type SettingsPatch = inferRouterInputs<AppRouter>["providers"]["save"];

/** Edits to send: only fields the person changed, per family. Keys: "" clears a saved key; absent keeps it. */
interface Draft {
  active?: ProviderId | null;
  sections: Record<string, Record<string, string>>;
  timeoutSec?: string;
  maxTokens?: string;
}
const emptyDraft = (): Draft => ({ sections: {} });

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
  if (!s) return <ProvidersUnreadable error={Boolean(status.error)} />;
  const p = Object.fromEntries(s.providers.map((x) => [x.id, x])) as Record<ProviderId, Family>;
  const active = draft.active !== undefined ? draft.active : s.active;

  const set = (family: string, field: string, value: string) =>
    setDraft((d) => ({ ...d, sections: { ...d.sections, [family]: { ...d.sections[family], [field]: value } } }));
  const draftOf = (family: string, field: string) => draft.sections[family]?.[field];

  const clean = (o: Record<string, string> | undefined) => (o && Object.keys(o).length ? o : undefined);
  // The form's values as a settings patch: what Save stores, and what Test tries before saving.
  const patch = () =>
    ({
      ...(draft.active !== undefined ? { active: draft.active } : {}),
      ...Object.fromEntries(s.providers.map((f) => [f.id, clean(draft.sections[f.id])])),
      ...(draft.timeoutSec !== undefined
        ? { timeoutSec: draft.timeoutSec === "" ? null : Number(draft.timeoutSec) }
        : {}),
      ...(draft.maxTokens !== undefined ? { maxTokens: draft.maxTokens === "" ? null : Number(draft.maxTokens) } : {}),
    }) as SettingsPatch;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setTestResult(null);
    save.mutate(patch());
  };
  const dirty = JSON.stringify(draft) !== JSON.stringify(emptyDraft());

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
      <UnkeptNotice settings={["chat.providers", "chat.detectLocal"]} />
      <p
        role="status"
        data-testid="provider-state"
        className={`rounded border px-3 py-2 text-sm ${s.ready ? "border-emerald-300 bg-emerald-50 dark:border-emerald-800 dark:bg-emerald-950" : "border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950"}`}
      >
        {s.ready
          ? `Chat uses ${p[s.active!].label}${p[s.active!].model ? ` · ${p[s.active!].model}` : ""}.`
          : // This form is where one is set up: say why, and what to choose below, not "Open Settings → Providers".
            `${s.unready ?? "Chat is not ready."} Choose one below: a local GGUF chat model, any OpenAI-compatible endpoint (Ollama, LM Studio, llama-server, vLLM, OpenAI) or Anthropic. /remember and /forget work without one.`}
      </p>
      <form onSubmit={onSubmit} aria-label="Provider settings" className="space-y-4">
        <fieldset className="space-y-1">
          <legend className="text-sm font-medium">
            Chat with <SourceTag source={draft.active !== undefined ? "settings" : s.activeSource} />
          </legend>
          <div className="flex flex-wrap gap-4 text-sm">
            {s.providers.map(({ id }) => (
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

        {s.providers.map((family) => (
          <ProviderFamilyFieldset
            key={family.id}
            family={family}
            local={s.local}
            draftOf={(field) => draftOf(family.id, field)}
            set={(field, value) => set(family.id, field, value)}
            onClear={(field) => save.mutate({ [family.id]: { [field]: "" } } as SettingsPatch)}
          />
        ))}

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
