"use client";

import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { BTN_MD as BTN, INPUT_WIDE as INPUT } from "../_ui/styles";
import { MemorySharing } from "./memory-sharing";

type Status = inferRouterOutputs<AppRouter>["providers"]["status"];
type Family = Status["providers"][number];
type Field = Family["form"]["fields"][number];
type Source = "settings" | "env" | "default" | "detected" | null;

const SOURCE: Record<string, string> = {
  settings: "saved here",
  env: "from environment",
  default: "default",
  detected: "detected on this machine",
};

/** Where a provider setting's value comes from (saved here, environment, default, detected). */
export function SourceTag({ source }: { source: Source }) {
  if (!source) return null;
  return (
    <span className="ml-1 rounded bg-zinc-200 px-1 text-[10px] font-normal uppercase tracking-wide text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400">
      {SOURCE[source]}
    </span>
  );
}

/** Settings → Providers for a member, who may not read the household's providers (issue 48: the card was empty). */
export function ProvidersUnreadable({ error }: { error: boolean }) {
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
      {error && (
        <div className="mt-1 space-y-3">
          <p className="text-sm text-zinc-500" data-testid="providers-admin-only">
            The models that answer chat, and their keys, are the household&apos;s: an admin sets them up. Which of your
            memories may go to each provider is yours to choose:
          </p>
          <MemorySharing />
        </div>
      )}
    </section>
  );
}

type FieldProps = {
  f: Field;
  draft: string | undefined;
  set: (field: string, value: string) => void;
  onClear: (field: string) => void;
};

/** A field's label with where its value comes from. */
function FieldLabel({ f }: { f: Field }) {
  return (
    <label htmlFor={f.inputId} className="block text-sm font-medium">
      {f.label}
      <SourceTag source={f.source} />
    </label>
  );
}

/** A write-only key: the page only learns whether one is set; Clear forgets a key saved here. */
function KeyField({ f, draft, set, onClear }: FieldProps) {
  return (
    <div>
      <FieldLabel f={f} />
      <div className="flex gap-1">
        <input
          id={f.inputId}
          type="password"
          autoComplete="off"
          value={draft ?? ""}
          onChange={(e) => set(f.name, e.target.value)}
          placeholder={f.set ? "•••••••• (set; type to replace)" : "not set"}
          className={INPUT}
        />
        {f.source === "settings" && (
          <button type="button" className={BTN} onClick={() => onClear(f.name)}>
            Clear
          </button>
        )}
      </div>
    </div>
  );
}

function TextField({ f, draft, set }: FieldProps) {
  return (
    <div>
      <FieldLabel f={f} />
      <input
        id={f.inputId}
        value={draft ?? f.value ?? ""}
        onChange={(e) => set(f.name, e.target.value)}
        placeholder={f.placeholder}
        className={INPUT}
      />
    </div>
  );
}

/**
 * One provider family's settings. Its fields come from its descriptor (server/chat/providers/families.ts),
 * through the status.
 */
export function ProviderFamilyFieldset(props: {
  family: Family;
  local: Status["local"];
  draftOf: (field: string) => string | undefined;
  set: (field: string, value: string) => void;
  onClear: (field: string) => void;
}) {
  const { family, local } = props;
  return (
    <fieldset className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800">
      <legend className="px-1 text-sm font-semibold">{family.form.title}</legend>
      {family.form.help && <p className="text-xs text-zinc-500">{family.form.help}</p>}
      <div className={family.form.fields.length > 1 ? "grid gap-2 sm:grid-cols-2" : undefined}>
        {family.form.fields.map((f) =>
          f.kind === "secret" ? (
            <KeyField key={f.name} f={f} draft={props.draftOf(f.name)} set={props.set} onClear={props.onClear} />
          ) : (
            <TextField key={f.name} f={f} draft={props.draftOf(f.name)} set={props.set} onClear={props.onClear} />
          ),
        )}
      </div>
      {family.form.localServer && local && (
        <p className="text-xs text-zinc-500" data-testid="local-server">
          Local server: {local.state}
          {local.engine ? ` · ${local.engine}` : ""}
          {local.lastError && local.state !== "ready" ? ` · ${local.lastError}` : ""}
        </p>
      )}
    </fieldset>
  );
}
