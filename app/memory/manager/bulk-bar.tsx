"use client";

import { BTN, BTN_DANGER, INPUT } from "../../_ui/styles";

/** The Manager's bulk toolbar: actions on every selected memory. */
export function BulkBar({
  count,
  busy,
  onPin,
  onImportance,
  onDelete,
  onRestore,
  onPurge,
  onClear,
  confirmPurge,
  setConfirmPurge,
  bulkImportance,
  setBulkImportance,
}: {
  count: number;
  busy: boolean;
  onPin: (pinned: boolean) => void;
  onImportance: (importance: number) => void;
  onDelete: () => void;
  onRestore: () => void;
  onPurge: () => void;
  onClear: () => void;
  confirmPurge: boolean;
  setConfirmPurge: (v: boolean) => void;
  bulkImportance: string;
  setBulkImportance: (v: string) => void;
}) {
  return (
    <div
      role="toolbar"
      aria-label="Bulk actions"
      className="sticky top-0 z-10 flex flex-wrap items-center gap-2 rounded border border-zinc-300 bg-white p-2 shadow-sm dark:border-zinc-700 dark:bg-zinc-900"
    >
      <span className="text-sm font-medium" data-testid="selected-count">
        {count} selected
      </span>
      <button type="button" className={BTN} disabled={busy} onClick={() => onPin(true)}>
        Pin
      </button>
      <button type="button" className={BTN} disabled={busy} onClick={() => onPin(false)}>
        Unpin
      </button>
      <span className="flex items-center gap-1">
        <select
          aria-label="Importance for selected"
          value={bulkImportance}
          onChange={(e) => setBulkImportance(e.target.value)}
          className={INPUT}
        >
          {[0, 1, 2, 3, 4, 5].map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
        <button type="button" className={BTN} disabled={busy} onClick={() => onImportance(Number(bulkImportance))}>
          Set importance
        </button>
      </span>
      <button type="button" className={BTN_DANGER} disabled={busy} onClick={onDelete}>
        Delete
      </button>
      <button type="button" className={BTN} disabled={busy} onClick={onRestore}>
        Restore
      </button>
      {confirmPurge ? (
        <span className="flex items-center gap-1 text-xs">
          Delete {count} for good?
          <button type="button" className={BTN_DANGER} disabled={busy} onClick={onPurge}>
            Yes, delete forever
          </button>
          <button type="button" className={BTN} onClick={() => setConfirmPurge(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" className={BTN_DANGER} disabled={busy} onClick={() => setConfirmPurge(true)}>
          Delete forever…
        </button>
      )}
      <button type="button" className={`${BTN} ml-auto`} onClick={() => (onClear(), setConfirmPurge(false))}>
        Clear selection
      </button>
    </div>
  );
}
