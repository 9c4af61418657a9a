"use client";

import { ErrorAlert, Field } from "../_ui/ui";
import { UnkeptNotice } from "./unkept-notice";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { localDateTime } from "../_ui/local-time";
import { BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";
import {
  AFTER_DECAY,
  JOB_FIELDS,
  JOB_SECTIONS,
  type JobField,
  jobFieldHint,
  type JobSectionKey,
} from "@/server/jobs/schedule-fields";

/** The form's values by field ("<section>.<key>"); an after-decay time also keeps "<…>#after". */
type Draft = Record<string, string | boolean>;
type Sections = Record<JobSectionKey, Record<string, unknown>>;

interface Loaded {
  settings: Sections;
  model: string | null;
  threshold: number;
}

const id = (f: JobField) => `${f.section}.${f.key}`;
const AFTER = "#after";

/** Each declared field's value as the form holds it (a per-model value: the store's model's). */
const toDraft = (d: Loaded): Draft => {
  const draft: Draft = {};
  for (const f of JOB_FIELDS as readonly JobField[]) {
    const v = d.settings[f.section][f.key];
    if (f.control === "toggle") draft[id(f)] = Boolean(v);
    else if (f.control === "time") {
      const after = Boolean(f.orAfterDecay) && v === AFTER_DECAY;
      draft[id(f)] = after && f.orAfterDecay ? f.orAfterDecay.time : String(v);
      if (f.orAfterDecay) draft[id(f) + AFTER] = after;
    } else draft[id(f)] = String(f.perModel ? d.threshold : v);
  }
  return draft;
};

/** The form's values as a settings patch, field by field from the declaration. */
const toPatch = (draft: Draft, model: string | null) => {
  const patch: Record<JobSectionKey, Record<string, unknown>> = { decay: {}, consolidate: {} };
  for (const f of JOB_FIELDS as readonly JobField[]) {
    const v = draft[id(f)];
    if (f.control === "toggle") patch[f.section][f.key] = v;
    else if (f.control === "time") patch[f.section][f.key] = draft[id(f) + AFTER] ? AFTER_DECAY : v;
    else if (!f.perModel) patch[f.section][f.key] = Number(v);
    else if (model) patch[f.section][f.key] = { [model]: Number(v) };
  }
  return patch;
};

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
        setSaved(`Saved. Next decay: ${localDateTime(r.next.decay, "not scheduled")}.`);
        void qc.invalidateQueries({ queryKey: trpc.jobs.settings.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.jobs.status.queryKey() });
      },
      onError: () => setSaved(null),
    }),
  );
  const set = (k: string, v: string | boolean) => {
    setSaved(null);
    setDraft((prev) => (prev ? { ...prev, [k]: v } : prev));
  };
  const model = q.data?.model ?? null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    save.mutate(toPatch(draft, model));
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
      <UnkeptNotice settings={["jobs"]} />
      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {!draft && !error && <p className="text-sm text-zinc-500">Loading…</p>}
      {draft && (
        <form onSubmit={submit} aria-label="Background job settings" className="space-y-4">
          {JOB_SECTIONS.map((section) => {
            const fields = (JOB_FIELDS as readonly JobField[]).filter((f) => f.section === section.key);
            return (
              <fieldset key={section.key} className="space-y-3">
                <legend className="text-sm font-semibold">{section.legend}</legend>
                {fields.map((f) =>
                  f.control === "toggle" ? (
                    <label key={f.key} className="flex items-center gap-2 text-sm">
                      <input
                        type="checkbox"
                        checked={Boolean(draft[id(f)])}
                        onChange={(e) => set(id(f), e.target.checked)}
                      />
                      {f.label}
                    </label>
                  ) : null,
                )}
                <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
                  {fields.map((f) =>
                    f.control === "toggle" ? null : (
                      <Field key={f.key} id={f.inputId} label={f.label} hint={jobFieldHint(f, model)}>
                        <DeclaredInput field={f} draft={draft} model={model} set={set} />
                      </Field>
                    ),
                  )}
                </div>
                {section.note && <p className="text-xs text-zinc-500">{section.note}</p>}
              </fieldset>
            );
          })}
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

/** The input of a declared time or number field (server/jobs/schedule-fields.ts). */
function DeclaredInput(props: {
  field: Exclude<JobField, { control: "toggle" }>;
  draft: Draft;
  model: string | null;
  set: (k: string, v: string | boolean) => void;
}) {
  const { field: f, draft, set } = props;
  if (f.control === "time") {
    const after = f.orAfterDecay ? Boolean(draft[id(f) + AFTER]) : false;
    return (
      <>
        {f.orAfterDecay && (
          <label className="mb-1 flex items-center gap-2 text-sm">
            <input type="checkbox" checked={after} onChange={(e) => set(id(f) + AFTER, e.target.checked)} />
            {f.orAfterDecay.label}
          </label>
        )}
        <input
          id={f.inputId}
          type="time"
          required={!f.orAfterDecay}
          disabled={after}
          value={String(draft[id(f)])}
          onChange={(e) => set(id(f), e.target.value)}
          className={INPUT}
        />
      </>
    );
  }
  return (
    <input
      id={f.inputId}
      type="number"
      min={f.min}
      max={f.max}
      step={f.step}
      required={!f.perModel}
      disabled={f.perModel && !props.model}
      value={String(draft[id(f)])}
      onChange={(e) => set(id(f), e.target.value)}
      className={INPUT}
    />
  );
}
