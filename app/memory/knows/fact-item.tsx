"use client";

import { useEffect, useId, useRef, useState } from "react";
import { localDate } from "../../_ui/local-time";
import { BTN, BTN_DANGER, BTN_PRIMARY, INPUT_WIDE } from "../../_ui/styles";
import { FactDeleteChoice } from "./fact-delete-choice";
import { FactHistory } from "./fact-history";
import { FactSources } from "./fact-sources";
import { type Fact, originLabel } from "./fact-types";

const BADGE = "rounded px-1.5 font-medium";

/**
 * One fact: its text (or the edit form: Enter saves, Escape cancels), since when it holds, where it came from
 * and whether it was confirmed; the actions the reader may take (edit, confirm and delete only where they may
 * write); its history and its sources, each shown on request.
 */
export function FactItem({
  fact,
  own,
  writable,
  busy,
  saving,
  focus,
  onSave,
  onConfirm,
  onDelete,
}: {
  fact: Fact;
  /** In one of the reader's own spaces. */
  own: boolean;
  writable: boolean;
  busy: boolean;
  saving: boolean;
  /** Take the keyboard focus when shown (a new version after an edit, a fact brought back). */
  focus: boolean;
  onSave: (text: string) => Promise<boolean>;
  onConfirm: () => void;
  /** Delete it; `forgetSources`: also forget the memories it came from (issue 54). */
  onDelete: (forgetSources: boolean) => void;
}) {
  const uid = useId();
  const [draft, setDraft] = useState<string | null>(null);
  const [history, setHistory] = useState(false);
  const [sources, setSources] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (focus) editButton.current?.focus();
  }, [focus]);
  useEffect(() => {
    if (draft === null) return;
    const el = box.current;
    if (el && document.activeElement !== el) {
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    }
  }, [draft]);

  /** The memories it came from that the reader sees (a shared space's trash is its owner's). */
  const n = fact.sources.length;
  const cancel = () => {
    setDraft(null);
    // The button is back on the next render.
    requestAnimationFrame(() => editButton.current?.focus());
  };
  const save = async () => {
    if (draft === null || !draft.trim() || saving) return;
    if (draft.trim() === fact.text) return cancel();
    if (await onSave(draft)) setDraft(null);
  };

  return (
    <li
      className="border-t border-zinc-200 py-3 first:border-t-0 dark:border-zinc-800"
      data-testid="fact"
      data-id={fact.id}
    >
      {draft !== null ? (
        <form
          aria-label="Edit fact"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
          className="space-y-1"
        >
          <label className="sr-only" htmlFor={`${uid}-text`}>
            Fact
          </label>
          <textarea
            id={`${uid}-text`}
            ref={box}
            value={draft}
            maxLength={500}
            rows={Math.min(6, Math.max(2, Math.ceil(draft.length / 70)))}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                e.preventDefault();
                cancel();
              } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void save();
              }
            }}
            className={INPUT_WIDE}
          />
          <div className="flex flex-wrap items-center gap-2">
            <button type="submit" className={BTN_PRIMARY} disabled={saving || !draft.trim()}>
              {saving ? "Saving…" : "Save"}
            </button>
            <button type="button" className={BTN} onClick={cancel}>
              Cancel
            </button>
            <span className="text-xs text-zinc-500">
              Enter saves a new version (the old one stays in the history) · Esc cancels
            </span>
          </div>
        </form>
      ) : (
        <p className="whitespace-pre-wrap break-words" data-testid="fact-text">
          {fact.text}
        </p>
      )}

      <p className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500" data-testid="fact-meta">
        <span>
          since{" "}
          <time dateTime={fact.validFrom} data-testid="fact-since">
            {localDate(fact.validFrom)}
          </time>
        </span>
        <span aria-hidden="true">·</span>
        <span data-testid="fact-origin">{originLabel(fact, own)}</span>
        {fact.confirmedAt && (
          <span
            className={`${BADGE} bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200`}
            data-testid="fact-confirmed"
          >
            ✓ confirmed {localDate(fact.confirmedAt)}
          </span>
        )}
      </p>

      {draft === null && (
        <div className="mt-2 flex flex-wrap items-center gap-1.5">
          {writable && (
            <button
              ref={editButton}
              type="button"
              className={BTN}
              disabled={busy}
              onClick={() => setDraft(fact.text)}
              aria-label={`Edit: ${fact.text}`}
            >
              Edit
            </button>
          )}
          {writable && !fact.confirmedAt && (
            <button
              type="button"
              className={BTN}
              disabled={busy}
              onClick={() => {
                onConfirm();
                // The button goes once the fact is confirmed: the focus waits on Edit, beside it.
                editButton.current?.focus();
              }}
              aria-label={`Confirm: ${fact.text}`}
            >
              Confirm
            </button>
          )}
          <button
            type="button"
            className={BTN}
            aria-expanded={history}
            aria-controls={`${uid}-history`}
            onClick={() => setHistory((h) => !h)}
          >
            {history ? "Hide history" : "Show history"}
          </button>
          <button
            type="button"
            className={BTN}
            aria-expanded={sources}
            aria-controls={`${uid}-sources`}
            onClick={() => setSources((s) => !s)}
          >
            {sources ? "Hide sources" : `Sources (${fact.sources.length})`}
          </button>
          {writable && (
            <button
              ref={deleteButton}
              type="button"
              className={BTN_DANGER}
              disabled={busy || deleting}
              onClick={() => (n > 0 ? setDeleting(true) : onDelete(false))}
              aria-label={`Delete: ${fact.text}`}
              aria-expanded={n > 0 ? deleting : undefined}
            >
              Delete
            </button>
          )}
        </div>
      )}
      {deleting && (
        <FactDeleteChoice
          text={fact.text}
          sources={n}
          busy={busy}
          onDelete={(forgetSources) => {
            setDeleting(false);
            onDelete(forgetSources);
          }}
          onCancel={() => {
            setDeleting(false);
            deleteButton.current?.focus();
          }}
        />
      )}
      {history && <FactHistory fact={fact} own={own} id={`${uid}-history`} />}
      {sources && <FactSources factId={fact.id} space={fact.space} id={`${uid}-sources`} />}
    </li>
  );
}
