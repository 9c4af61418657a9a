"use client";

import { SPACE_RE } from "@/server/core/space-name";
import { BTN, BTN_DANGER, INPUT } from "../_ui/styles";

/** Settings → Spaces: the inline form that renames space `space` (to a valid, different name). */
export function RenameSpaceForm(props: {
  space: string;
  to: string;
  onChange: (to: string) => void;
  onSave: (to: string) => void;
  onCancel: () => void;
  pending: boolean;
}) {
  const { space, to } = props;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (SPACE_RE.test(to)) props.onSave(to);
      }}
      className="flex flex-wrap items-center gap-1"
    >
      <label className="sr-only" htmlFor={`rename-${space}`}>
        New name for {space}
      </label>
      <input
        id={`rename-${space}`}
        autoFocus
        value={to}
        onChange={(e) => props.onChange(e.target.value.trim())}
        className={`w-40 ${INPUT}`}
      />
      <button type="submit" className={BTN} disabled={props.pending || !SPACE_RE.test(to) || to === space}>
        Save name
      </button>
      <button type="button" className={BTN} onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** Settings → Spaces: what deleting space `space.id` removes for good, confirmed by typing its name. */
export function DeleteSpaceForm(props: {
  space: { id: string; memories: number; deleted: number; conversations: number; documents: number };
  confirm: string;
  onChange: (confirm: string) => void;
  onDelete: (confirm: string) => void;
  onCancel: () => void;
  pending: boolean;
}) {
  const { space: s, confirm } = props;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (confirm === s.id) props.onDelete(confirm);
      }}
      className="mt-2 space-y-1 rounded border border-red-300 bg-red-50 p-2 text-xs dark:border-red-800 dark:bg-red-950"
      aria-label={`Confirm deleting ${s.id}`}
    >
      <p>
        This deletes <strong>{s.memories + s.deleted}</strong> memories, {s.conversations} conversations and{" "}
        {s.documents} documents of “{s.id}” for good. Type the space name to confirm.
      </p>
      <label className="sr-only" htmlFor={`confirm-${s.id}`}>
        Type {s.id} to confirm
      </label>
      <input
        id={`confirm-${s.id}`}
        autoFocus
        value={confirm}
        onChange={(e) => props.onChange(e.target.value)}
        className={`w-40 ${INPUT}`}
      />
      <div className="flex gap-1">
        <button type="submit" className={BTN_DANGER} disabled={confirm !== s.id || props.pending}>
          Delete space
        </button>
        <button type="button" className={BTN} onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
