"use client";

import { useEffect, useRef } from "react";
import { BTN, BTN_DANGER } from "../../_ui/styles";

/**
 * Deleting a fact that came from `sources` messages: delete it and forget them too, delete the fact only, or
 * cancel (Escape too). The first choice takes the focus when shown.
 */
export function FactDeleteChoice({
  text,
  sources: n,
  busy,
  onDelete,
  onCancel,
}: {
  text: string;
  sources: number;
  busy: boolean;
  onDelete: (forgetSources: boolean) => void;
  onCancel: () => void;
}) {
  const firstChoice = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    firstChoice.current?.focus();
  }, []);
  return (
    <fieldset
      className="mt-2 space-y-2 rounded border border-red-300 bg-red-50 p-2 text-sm dark:border-red-900 dark:bg-red-950/40"
      data-testid="fact-delete-confirm"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
    >
      <legend className="sr-only">Delete this fact</legend>
      <p className="break-words">
        Delete “{text}”? Memo stops stating it.{" "}
        {n === 1
          ? "The message it came from stays in memory and can still be recalled unless you forget it too."
          : `The ${n} messages it came from stay in memory and can still be recalled unless you forget them too.`}
      </p>
      <p className="font-medium">Also forget the {n === 1 ? "message" : `${n} messages`} it came from?</p>
      <div className="flex flex-wrap gap-2">
        <button
          ref={firstChoice}
          type="button"
          className={BTN_DANGER}
          disabled={busy}
          onClick={() => onDelete(true)}
          data-testid="fact-delete-forget"
        >
          Delete and forget {n === 1 ? "the message" : `the ${n} messages`}
        </button>
        <button
          type="button"
          className={BTN}
          disabled={busy}
          onClick={() => onDelete(false)}
          data-testid="fact-delete-only"
        >
          Delete the fact only
        </button>
        <button type="button" className={BTN} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
