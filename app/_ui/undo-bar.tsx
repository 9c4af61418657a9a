"use client";

import { useEffect, useRef } from "react";

/**
 * "Undo" where something was just deleted (the Manager's row, a fact): the text, Undo and Dismiss.
 * `focusUndo` moves the focus to Undo, so a keyboard reader can take it back at once; `wrap` lets a long
 * text break over lines instead of being cut.
 */
export function UndoBar({
  text,
  busy,
  onUndo,
  onClose,
  focusUndo = false,
  wrap = false,
  testId,
}: {
  text: string;
  busy: boolean;
  onUndo: () => void;
  onClose: () => void;
  focusUndo?: boolean;
  wrap?: boolean;
  testId?: string;
}) {
  const undo = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusUndo) undo.current?.focus();
  }, [focusUndo]);
  return (
    <div
      role="status"
      className="flex items-center gap-3 rounded bg-zinc-900 px-3 py-1.5 text-sm text-white dark:bg-zinc-100 dark:text-zinc-900"
      {...(testId ? { "data-testid": testId } : {})}
    >
      <span className={`min-w-0 flex-1 ${wrap ? "break-words" : "truncate"}`}>{text}</span>
      <button
        ref={undo}
        type="button"
        className="rounded border border-white/40 px-2 py-0.5 text-xs font-semibold hover:bg-white/10 disabled:opacity-50 dark:border-zinc-900/40"
        disabled={busy}
        onClick={onUndo}
      >
        Undo
      </button>
      <button
        type="button"
        aria-label="Dismiss"
        className="px-1 text-xs opacity-70 hover:opacity-100"
        onClick={onClose}
      >
        ✕
      </button>
    </div>
  );
}
