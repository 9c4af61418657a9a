"use client";

import { INPUT_WIDE as INPUT } from "../_ui/styles";
import {
  fieldValue,
  retrievalFields,
  type RetrievalField,
  type RetrievalFieldGroup,
  type RetrievalFieldPath,
} from "@/server/memory/retrieval/settings-fields";
import type { RetrievalSettings } from "@/server/memory/retrieval/settings";

/** Every value a select field offers: min to max by step (few: settings-fields.test.ts). */
const choices = (f: RetrievalField): number[] =>
  Array.from({ length: Math.floor((f.max! - f.min) / f.step) + 1 }, (_, i) => f.min + i * f.step);

function DeclaredField(props: {
  field: RetrievalField;
  value: string;
  defaultValue: number;
  onChange: (v: string) => void;
}) {
  const { field: f } = props;
  const hint = f.help ? `${f.help}; default ${props.defaultValue}` : `default ${props.defaultValue}`;
  return (
    <div>
      <label htmlFor={f.inputId} className="block text-sm font-medium">
        {f.label}
      </label>
      {f.control === "select" ? (
        <select id={f.inputId} value={props.value} onChange={(e) => props.onChange(e.target.value)} className={INPUT}>
          {choices(f).map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      ) : (
        <input
          id={f.inputId}
          type="number"
          inputMode="decimal"
          min={f.min}
          max={f.max}
          step={f.step}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          className={INPUT}
        />
      )}
      <p className="mt-0.5 text-xs text-zinc-500">{f.control === "select" ? `${hint}.` : hint}</p>
    </div>
  );
}

/** One input per declared field of a group (server/memory/retrieval/settings-fields.ts), in its order. */
export function DeclaredFields(props: {
  group: RetrievalFieldGroup;
  values: Record<RetrievalFieldPath, string>;
  defaults: RetrievalSettings;
  onChange: (path: RetrievalFieldPath, v: string) => void;
}) {
  return retrievalFields(props.group).map((f) => (
    <DeclaredField
      key={f.path}
      field={f}
      value={props.values[f.path]}
      defaultValue={fieldValue(props.defaults, f.path)}
      onChange={(v) => props.onChange(f.path, v)}
    />
  ));
}
