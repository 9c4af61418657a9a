"use client";

import Link from "next/link";
import { useEffect, useState, type KeyboardEvent, type RefObject } from "react";
import { parseCommand } from "@/server/chat/commands";
import { MAX_MESSAGE_CHARS } from "@/server/chat/limits";
import { BTN_MD as BTN, TAP_FREQUENT } from "../_ui/styles";

export const MAX_CHARS = MAX_MESSAGE_CHARS;
/** The count appears from here on: well before the limit, so a long paste is not a surprise. */
const COUNT_FROM = Math.round(MAX_CHARS * 0.8);

const BTN_PRIMARY =
  "rounded bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900";
const n = (x: number) => x.toLocaleString("en");

/** Store an over-long message as a document of the space instead (the Ingest pipeline: chunked, embedded, searchable). */
async function ingestText(
  text: string,
  space: string,
): Promise<{ ok: true; name: string; duplicate: boolean } | { ok: false; error: string }> {
  const name = `pasted-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.txt`;
  const form = new FormData();
  form.append("file", new File([text], name, { type: "text/plain" }));
  form.append("space", space);
  const res = await fetch("/api/v1/documents", { method: "POST", body: form });
  const body = (await res.json().catch(() => null)) as {
    documents?: { status: string; error?: string; duplicateOf?: string }[];
    error?: { message?: string };
  } | null;
  const doc = body?.documents?.[0];
  if (!res.ok || !doc) return { ok: false, error: body?.error?.message ?? `HTTP ${res.status}` };
  if (doc.status === "failed") return { ok: false, error: doc.error ?? "the document could not be stored" };
  return { ok: true, name, duplicate: Boolean(doc.duplicateOf) };
}

export interface ComposerProps {
  value: string;
  onChange: (v: string) => void;
  onSend: () => void;
  streaming: boolean;
  onStop: () => void;
  /** ↑ in an empty box: edit the last message. */
  onEditLast: () => void;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  space: string;
}

/** The message box: send / stop, the character count near the limit, and an over-long message kept and offered to Ingest. */
export function Composer({ value, onChange, onSend, streaming, onStop, onEditLast, inputRef, space }: ComposerProps) {
  const [ingest, setIngest] = useState<
    { state: "busy" } | { state: "done"; text: string } | { state: "failed"; text: string } | null
  >(null);
  // Set once React has hydrated the box: text typed into the server-rendered box before then is not in
  // `value`, so a send would find it empty (e2e page objects wait for this before typing).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const tooLong = value.length > MAX_CHARS;
  const cmd = parseCommand(value);
  const send = () => {
    if (tooLong || !value.trim() || streaming) return;
    setIngest(null);
    onSend();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "ArrowUp" && value === "" && !e.shiftKey && !e.altKey && !e.metaKey && !e.ctrlKey) {
      e.preventDefault();
      onEditLast();
    }
  };
  const toIngest = async () => {
    setIngest({ state: "busy" });
    const r = await ingestText(value, space);
    if (!r.ok) return setIngest({ state: "failed", text: `Could not ingest it: ${r.error}` });
    onChange("");
    setIngest({
      state: "done",
      text: r.duplicate
        ? `This text is already stored as a document in '${space}'.`
        : `Stored as the document ${r.name} in '${space}': it is being chunked and embedded.`,
    });
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
      aria-label="Send a message"
      data-hydrated={hydrated || undefined}
      className="space-y-1 px-3 pb-2 pt-2"
    >
      {tooLong && (
        <div
          role="alert"
          className="space-y-1 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
          data-testid="too-long"
        >
          <p>
            This message is {n(value.length)} characters; a message can be at most {n(MAX_CHARS)}. It was not sent, and
            it is kept here. Shorten it, or store it as a document: its text becomes memory that later chats recall.
          </p>
          <button type="button" className={BTN} onClick={() => void toIngest()} disabled={ingest?.state === "busy"}>
            {ingest?.state === "busy" ? "Ingesting…" : "Ingest as a document"}
          </button>
        </div>
      )}
      {ingest && ingest.state !== "busy" && (
        <p
          role="status"
          className={`text-sm ${ingest.state === "failed" ? "text-red-700 dark:text-red-300" : "text-emerald-700 dark:text-emerald-400"}`}
          data-testid="ingest-result"
        >
          {ingest.text}{" "}
          {ingest.state === "done" && (
            <Link href="/ingest" className="underline">
              Open Ingest
            </Link>
          )}
        </p>
      )}
      <label htmlFor="chat-input" className="sr-only">
        Message
      </label>
      <div className="flex items-end gap-2">
        <textarea
          id="chat-input"
          dir="auto"
          ref={inputRef}
          autoFocus
          value={value}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby="composer-hint"
          aria-invalid={tooLong || undefined}
          rows={Math.min(8, Math.max(2, value.split("\n").length))}
          placeholder="Message Memo…  (/help lists commands and shortcuts)"
          className="max-h-[40dvh] min-w-0 flex-1 resize-none rounded border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
        />
        {streaming ? (
          <button type="button" className={`${BTN} ${TAP_FREQUENT}`} onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" className={`${BTN_PRIMARY} ${TAP_FREQUENT}`} disabled={!value.trim() || tooLong}>
            Send
          </button>
        )}
      </div>
      <div className="flex items-center gap-2 text-xs text-zinc-500">
        <p id="composer-hint" data-testid="composer-hint" className="min-w-0 flex-1 truncate">
          {cmd?.type === "remember"
            ? "Will remember this as a pinned memory."
            : cmd?.type === "forget"
              ? "Will forget the memories that contain this text (undo possible for 7 days)."
              : cmd?.type === "invalid"
                ? cmd.message
                : "Enter to send, Shift+Enter for a new line, Esc stops a reply."}
        </p>
        {value.length >= COUNT_FROM && (
          <span
            className={`shrink-0 tabular-nums ${tooLong ? "font-semibold text-red-700 dark:text-red-300" : ""}`}
            data-testid="char-count"
          >
            {n(value.length)} / {n(MAX_CHARS)}
          </span>
        )}
      </div>
    </form>
  );
}
