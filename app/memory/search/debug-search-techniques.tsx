import type { Dispatch, SetStateAction } from "react";
import type { RetrievalSettings } from "@/server/memory/retrieval/settings";
import { TECHNIQUES, techniqueOn, type Technique, type TechniqueOverrides } from "@/server/memory/retrieval/techniques";

export const INPUT = "rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900";

/**
 * Debug Search's memory techniques for this search only (an override per technique; none: the saved
 * setting) and the would-be-packed threshold (debug-search.tsx holds the state).
 */
export function TechniqueOptions({
  techniques,
  setTechniques,
  savedSettings,
  minConfidence,
  setMinConfidence,
}: {
  techniques: TechniqueOverrides;
  setTechniques: Dispatch<SetStateAction<TechniqueOverrides>>;
  savedSettings: RetrievalSettings | undefined;
  minConfidence: string;
  setMinConfidence: (v: string) => void;
}) {
  const savedOn = (t: Technique) => (savedSettings ? techniqueOn(t, savedSettings) : false);
  // Checked = on for this search: the override if there is one, else the saved setting.
  const isOn = (t: Technique) => (techniques[t.key] !== undefined ? techniques[t.key] !== t.off : savedOn(t));
  const toggle = (t: Technique, on: boolean) => {
    setTechniques((prev) => {
      const next = { ...prev };
      // Back to the saved state drops the override; otherwise off at its off value, on at the saved value or the measured one.
      if (on === savedOn(t)) delete next[t.key];
      else Object.assign(next, { [t.key]: on ? t.on : t.off });
      return next;
    });
  };
  // A numeric technique that is on shows its value beside its label.
  const shownValue = (t: Technique) =>
    typeof t.off === "boolean" || !isOn(t) ? undefined : (techniques[t.key] ?? savedSettings?.[t.key]);

  return (
    <fieldset className="flex min-w-0 flex-wrap items-center gap-x-4 gap-y-2 text-sm" data-testid="techniques">
      <legend className="mb-1 text-xs font-medium text-zinc-500">
        Memory techniques for this search (saved in Settings → Retrieval)
      </legend>
      {TECHNIQUES.map((t) => {
        const v = shownValue(t);
        return (
          <label key={t.key} className="flex items-center gap-2" title={t.does}>
            <input type="checkbox" checked={isOn(t)} onChange={(e) => toggle(t, e.target.checked)} />
            {t.label}
            {v !== undefined && <span className="tabular-nums text-zinc-500"> {String(v)}</span>}
          </label>
        );
      })}
      <label
        className="flex items-center gap-2"
        title="The would-be-packed threshold for this search: results at or above it go into a prompt"
      >
        Minimum confidence
        <input
          type="number"
          min={0}
          max={1}
          step={0.01}
          value={minConfidence}
          placeholder={`saved (${savedSettings?.minConfidence ?? "…"})`}
          onChange={(e) => setMinConfidence(e.target.value)}
          className={`w-28 ${INPUT}`}
        />
      </label>
    </fieldset>
  );
}
