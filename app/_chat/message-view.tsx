"use client";

import { useEffect, useRef, useState } from "react";
import type { StoredMessage } from "@/server/chat/conversations";
import { ACTION_BTN, CopyButton } from "./copy-button";
import { CutShortNote } from "./cut-short-note";
import { ForgetConfirm } from "./forget-confirm";
import { CommandDetails, Markdown, splitInterrupted, type UiMessage } from "./message";
import { MemoryLine } from "./memory-line";
import { SentTo } from "./sent-to";
import { LearnedLine } from "./learned-line";
import { MAX_CHARS } from "./composer";
import { isStoredId } from "./use-chat-turn";

export interface MessageActions {
  /** No turn is running: Regenerate, Retry and Edit may start one. */
  idle: boolean;
  /** This is the conversation's last message. */
  isLast: boolean;
  space?: string;
  editing: boolean;
  onStartEdit: () => void;
  onCancelEdit: () => void;
  onSubmitEdit: (text: string) => void;
  onRegenerate: () => void;
  onUndo?: () => void;
  undoing?: boolean;
  /** The server changed this message (a /forget confirmed or kept): show it as stored. */
  onStored?: (m: StoredMessage) => void;
  /** The page was opened at this message (/c/<id>#<message id>): marked, and focusable to land on. */
  anchored?: boolean;
}

/** The mark on a message the page was opened at. */
const ANCHORED = "rounded-lg ring-2 ring-amber-400 ring-offset-4 dark:ring-offset-zinc-950";

/** A stored message's element id (what /c/<id>#<message id> points at) and, when linked, its mark and focusability. */
function anchorProps(m: UiMessage, a: MessageActions, className = "") {
  return {
    id: isStoredId(m.id) ? m.id : undefined,
    className: [className, a.anchored ? ANCHORED : ""].filter(Boolean).join(" ") || undefined,
    ...(a.anchored ? { tabIndex: -1, "data-anchored": "true" } : {}),
  };
}

function EditBox({
  initial,
  onCancel,
  onSubmit,
}: {
  initial: string;
  onCancel: () => void;
  onSubmit: (text: string) => void;
}) {
  const [text, setText] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const tooLong = text.length > MAX_CHARS;
  const submit = () => text.trim() && !tooLong && onSubmit(text);
  return (
    <form
      className="relative w-full max-w-[85%] space-y-1"
      aria-label="Edit message"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label className="sr-only" htmlFor="edit-message">
        Edited message
      </label>
      <textarea
        id="edit-message"
        dir="auto"
        ref={ref}
        value={text}
        rows={Math.min(10, Math.max(2, text.split("\n").length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
        className="w-full resize-none rounded border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
      />
      {tooLong && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {text.length.toLocaleString("en")} characters: the limit is {MAX_CHARS.toLocaleString("en")}.
        </p>
      )}
      <div className="flex justify-end gap-2 text-xs text-zinc-500">
        <span className="mr-auto self-center">Enter sends and replaces what followed · Esc cancels</span>
        <button type="button" className={ACTION_BTN} onClick={onCancel}>
          Cancel
        </button>
        <button
          type="submit"
          className="rounded bg-zinc-900 px-2 py-1 text-xs font-medium text-white disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900"
          disabled={!text.trim() || tooLong}
        >
          Send
        </button>
      </div>
    </form>
  );
}

function UserMessage({ m, a }: { m: UiMessage; a: MessageActions }) {
  if (a.editing) {
    return (
      <li className="flex justify-end" data-testid="user-message" data-editing="true">
        <EditBox initial={m.content} onCancel={a.onCancelEdit} onSubmit={a.onSubmitEdit} />
      </li>
    );
  }
  return (
    <li {...anchorProps(m, a, "group flex flex-col items-end")} data-testid="user-message" data-id={m.id}>
      <div
        dir="auto"
        className="max-w-[85%] whitespace-pre-wrap break-words rounded-lg bg-zinc-900 px-3 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900"
        data-testid="user-text"
      >
        {m.content}
      </div>
      <div className="mt-0.5 flex gap-1" data-testid="message-actions">
        {a.isLast && isStoredId(m.id) && (
          <button
            type="button"
            className={`${ACTION_BTN} text-red-700 dark:text-red-300`}
            onClick={a.onRegenerate}
            disabled={!a.idle}
            title="This message has no reply yet"
          >
            Retry
          </button>
        )}
        <CopyButton label="Copy" text={() => m.content} />
        {isStoredId(m.id) && (
          <button type="button" className={ACTION_BTN} onClick={a.onStartEdit} disabled={!a.idle}>
            Edit
          </button>
        )}
      </div>
    </li>
  );
}

function AssistantMessage({ m, a }: { m: UiMessage; a: MessageActions }) {
  const { text: full, note, reason } = splitInterrupted(m.content);
  // A /forget's card lists the memories itself: its text shows only the first line (what happened), not the list again.
  const text = m.command?.type === "forget" ? (full.split("\n\n")[0] ?? full) : full;
  // A reply the person stopped is answered again with Regenerate; one cut by anything else, with Retry.
  const failed = m.status === "error" || (note !== null && reason !== "stopped");
  const stored = isStoredId(m.id);
  return (
    <li
      {...anchorProps(m, a)}
      data-testid="assistant-message"
      data-status={m.status}
      aria-busy={m.status === "streaming"}
    >
      <div className="rounded-lg border border-zinc-200 bg-white px-3 py-2 dark:border-zinc-800 dark:bg-zinc-900">
        {text ? (
          <div data-testid="reply" dir="auto">
            <Markdown text={text} />
          </div>
        ) : m.status === "streaming" ? (
          <p className="text-sm text-zinc-500" data-testid="thinking">
            Thinking…
          </p>
        ) : null}
        {m.command?.type === "forget" && (m.command.pending || m.command.cancelledAt) ? (
          <ForgetConfirm messageId={m.id} command={m.command} onStored={a.onStored} />
        ) : (
          m.command && <CommandDetails command={m.command} onUndo={a.onUndo} undoing={a.undoing} />
        )}
        {/* One plain message per failure: the live error, or (after a reload) the note stored with a cut-short reply. */}
        {m.status === "error" && m.errorKind === "not_configured" && !text ? (
          // The "Connect a model" card above says how; here only what became of the message, truthfully
          // (server/chat/turn.ts stores it in the conversation; only an answered exchange becomes memory).
          <p
            role="alert"
            className="mt-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
            data-testid="reply-error"
          >
            No model is connected, so nothing answered. Your message is kept in this conversation but not in memory: an
            exchange becomes memory once a model answers it. Connect a model, then Retry.
          </p>
        ) : m.status === "error" && m.error ? (
          <p
            role="alert"
            className="mt-2 rounded border border-red-300 bg-red-50 px-2 py-1 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
            data-testid="reply-error"
          >
            {text ? `The reply was cut short: ${m.error}` : m.error}
          </p>
        ) : note && reason ? (
          <CutShortNote
            messageId={stored ? m.id : null}
            reason={reason}
            note={note}
            hasText={Boolean(text.trim())}
            canStore={m.sent?.stored !== false}
          />
        ) : null}
        {m.recallError && (
          <p className="mt-2 text-xs text-amber-700 dark:text-amber-400" data-testid="recall-error">
            {m.recallError} (answered without memories)
          </p>
        )}
      </div>
      {m.status !== "streaming" && (
        <div className="mt-0.5 flex flex-wrap items-center gap-1" data-testid="message-actions">
          {text && <CopyButton label="Copy" text={() => full} />}
          {a.isLast && failed && (
            <button
              type="button"
              className={`${ACTION_BTN} text-red-700 dark:text-red-300`}
              onClick={a.onRegenerate}
              disabled={!a.idle}
            >
              Retry
            </button>
          )}
          {a.isLast && !failed && stored && !m.command && (
            <button type="button" className={ACTION_BTN} onClick={a.onRegenerate} disabled={!a.idle}>
              Regenerate
            </button>
          )}
          {m.provider && <span className="text-xs text-zinc-400">{m.provider}</span>}
        </div>
      )}
      {/* The reply's footer: memory stored and recalled. Later lines about the reply (where it was sent, memory not used) go here too. */}
      {!m.command && m.status !== "streaming" && (
        <MemoryLine
          messageId={stored && text ? m.id : null}
          createdAt={m.createdAt}
          recalled={m.recalled}
          space={a.space}
        />
      )}
      {m.status === "streaming" && m.recalled && <MemoryLine messageId={null} recalled={m.recalled} space={a.space} />}
      {m.sent && <SentTo sent={m.sent} />}
      {stored && m.sent?.stored !== false && !m.command && m.status !== "streaming" && (
        <LearnedLine messageId={m.id} createdAt={m.createdAt} />
      )}
    </li>
  );
}

export function MessageView({ m, actions }: { m: UiMessage; actions: MessageActions }) {
  return m.role === "user" ? <UserMessage m={m} a={actions} /> : <AssistantMessage m={m} a={actions} />;
}
