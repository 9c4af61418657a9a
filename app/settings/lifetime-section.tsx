"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UnkeptNotice } from "./unkept-notice";
import { useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { ErrorAlert, Field, Muted, Notice, SettingsSection } from "../_ui/ui";
import { BTN_PRIMARY_MD as BTN_PRIMARY, INPUT_WIDE as INPUT } from "../_ui/styles";
import { DECAY_DAY_FIELDS } from "@/server/jobs/lifetime-fields";
import { namesList, otherAppImports } from "@/server/services/import/formats";

const IMPORTERS = namesList(
  otherAppImports().map((f) => f.name),
  "or",
);
const KINDS = [
  ["chat", "Chat exchanges"],
  ["consolidated", "Consolidated (merged) memories"],
  ["remember", "/remember (pinned facts)"],
  // Every importer of another app's export, named from the import registry (formats.ts).
  ["import", `Imported (${IMPORTERS} export, Memo import)`],
] as const;
type Kind = (typeof KINDS)[number][0];

interface Draft {
  idleDays: string;
  zeroDays: string;
  retentionDays: string;
  lifetime: Record<Kind, "decay" | "keep">;
}

/**
 * Settings → Lifetime of your memories: each person's own decay days and which of their kinds decay (the
 * personal setting `lifetime`, tRPC jobs.lifetime / jobs.saveLifetime; issue 43). Every person reaches it,
 * members included: the daily decay run applies each person's rules to their spaces, on the household's
 * schedule (Background jobs, an admin's). Document chunks always live with their document.
 */
export function LifetimeSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.jobs.lifetime.queryOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    if (q.data && draft === null)
      setDraft({
        idleDays: String(q.data.idleDays),
        zeroDays: String(q.data.zeroDays),
        retentionDays: String(q.data.retentionDays),
        lifetime: { ...q.data.lifetime },
      });
  }, [q.data, draft]);
  const save = useMutation(
    trpc.jobs.saveLifetime.mutationOptions({
      onSuccess: (r) => {
        setSaved(
          `Saved. Unused memories decay after ${r.idleDays} days; deleted ones are purged after ${r.retentionDays}.`,
        );
        void qc.invalidateQueries({ queryKey: trpc.jobs.lifetime.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.analytics.lifetime.queryKey() });
      },
      onError: () => setSaved(null),
    }),
  );
  const change = (patch: Partial<Draft>) => {
    setSaved(null);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    save.mutate({
      idleDays: Number(draft.idleDays),
      zeroDays: Number(draft.zeroDays),
      retentionDays: Number(draft.retentionDays),
      lifetime: draft.lifetime,
    });
  };
  const error = save.error ?? q.error;

  return (
    <SettingsSection
      anchor="lifetime"
      headingId="lifetime-heading"
      title="Lifetime of your memories"
      testId="lifetime-section"
      gap="space-y-3"
      intro={
        <Muted>
          How long your memories live when they are not recalled. These are yours alone: the daily decay run applies
          each person&apos;s own.
        </Muted>
      }
    >
      <UnkeptNotice settings={["lifetime"]} />
      {error && <ErrorAlert>{error.message}</ErrorAlert>}
      {!draft && !error && <p className="text-sm text-zinc-500">Loading…</p>}
      {draft && (
        <form onSubmit={submit} aria-label="Lifetime of your memories" className="space-y-4">
          <div className="grid gap-4 sm:grid-cols-3">
            {/* One input per declared field (server/jobs/lifetime-fields.ts): label, help, unit, range, default. */}
            {DECAY_DAY_FIELDS.map((f) => (
              <Field key={f.key} id={f.inputId} label={f.label} hint={`${f.help}; default ${f.default}`}>
                <input
                  id={f.inputId}
                  type="number"
                  min={f.min}
                  max={f.max}
                  step={1}
                  required
                  value={draft[f.key]}
                  onChange={(e) => change({ [f.key]: e.target.value })}
                  className={INPUT}
                  title={`${f.min}–${f.max} ${f.unit}`}
                />
              </Field>
            ))}
          </div>
          <fieldset className="space-y-1" data-testid="lifetime-settings">
            <legend className="text-sm font-medium">Which kinds decay</legend>
            {KINDS.map(([kind, label]) => (
              <label key={kind} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={draft.lifetime[kind] === "decay"}
                  onChange={(e) =>
                    change({ lifetime: { ...draft.lifetime, [kind]: e.target.checked ? "decay" : "keep" } })
                  }
                  data-testid={`lifetime-${kind}`}
                />
                {label} decay when not recalled
              </label>
            ))}
            <p className="text-xs text-zinc-500">
              Unchecked kinds are kept until you delete them. Document chunks never decay one by one: a document lives
              until you delete it, and its chunks go with it. Pinned memories never decay.
            </p>
          </fieldset>
          <div className="flex flex-wrap items-center gap-2">
            <button type="submit" className={BTN_PRIMARY} disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save lifetime settings"}
            </button>
            <Notice testId="lifetime-saved">{saved}</Notice>
          </div>
        </form>
      )}
    </SettingsSection>
  );
}
