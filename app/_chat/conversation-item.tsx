"use client";

import Link from "next/link";
import { useState } from "react";
import type { ConversationRow } from "./conversation-list";
import { DeleteChatConfirm } from "./delete-chat";
import { IMPORT_FORMATS, isImportFormat } from "@/server/services/import/formats";
import { localDateTime, recentDate } from "../_ui/local-time";

/** "ChatGPT", "Claude": the app an imported conversation came from (null for a chat started here). */
export function importedFromName(from: string | null): string | null {
  return from === null ? null : isImportFormat(from) ? IMPORT_FORMATS[from].name : from;
}

// At least 24 px on a phone (the drawer): TAP in _ui/styles.ts.
const BTN =
  "max-sm:inline-flex max-sm:min-h-6 max-sm:min-w-6 max-sm:items-center max-sm:justify-center shrink-0 whitespace-nowrap rounded px-1 py-0.5 text-xs text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 disabled:opacity-50 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

/** Renders «matched» words of a search snippet as marks. */
function Snippet({ text }: { text: string }) {
  return (
    <span className="line-clamp-2 text-xs text-zinc-500" data-testid="conversation-snippet">
      {text.split(/(«[^»]*»)/).map((p, i) =>
        p.startsWith("«") ? (
          <mark key={i} className="rounded bg-amber-200 px-0.5 text-zinc-900 dark:bg-amber-700 dark:text-zinc-50">
            {p.slice(1, -1)}
          </mark>
        ) : (
          p
        ),
      )}
    </span>
  );
}

export function ConversationItem({
  c,
  current,
  busy,
  onOpen,
  onRename,
  onPin,
  onExport,
  onDelete,
}: {
  c: ConversationRow;
  current: boolean;
  busy: boolean;
  onOpen?: () => void;
  onRename: (title: string) => Promise<void>;
  onPin: () => void;
  onExport: () => void;
  onDelete: (forgetMemories: boolean) => void;
}) {
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [title, setTitle] = useState(c.title);
  const from = importedFromName(c.importedFrom);
  return (
    <li
      data-testid="conversation-item"
      data-id={c.id}
      data-pinned={c.pinned || undefined}
      data-imported-from={c.importedFrom ?? undefined}
      className={`rounded px-2 py-1 ${current ? "bg-zinc-200 dark:bg-zinc-800" : "hover:bg-zinc-100 dark:hover:bg-zinc-900"}`}
    >
      {mode === "rename" ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (title.trim()) void onRename(title).then(() => setMode("view"));
          }}
          className="flex items-center gap-1"
        >
          <label htmlFor={`rename-${c.id}`} className="sr-only">
            New title
          </label>
          <input
            id={`rename-${c.id}`}
            autoFocus
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== "Escape") return;
              e.stopPropagation(); // cancels the rename only, not the drawer around it
              setMode("view");
            }}
            className="min-w-0 flex-1 rounded border border-zinc-300 bg-white px-1 py-0.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          />
          <button type="submit" className={BTN} disabled={busy}>
            Save
          </button>
        </form>
      ) : (
        <>
          <div className="flex items-baseline gap-2">
            <Link
              href={`/c/${c.id}`}
              onClick={onOpen}
              aria-current={current ? "page" : undefined}
              dir="auto"
              className="min-w-0 flex-1 truncate text-sm max-sm:py-0.5"
              title={c.title}
            >
              {c.pinned && (
                <span role="img" aria-label="pinned">
                  📌{" "}
                </span>
              )}
              {c.title}
            </Link>
            <time
              dateTime={c.updatedAt}
              className="shrink-0 text-[11px] tabular-nums text-zinc-500"
              title={localDateTime(c.updatedAt)}
              suppressHydrationWarning
            >
              {recentDate(c.updatedAt)}
            </time>
          </div>
          {c.snippet && <Snippet text={c.snippet} />}
          {/* The space name shows whole; the actions wrap under it when the row is narrow (the phone drawer). */}
          <div className="flex flex-wrap items-center gap-0.5">
            <span className="mr-auto flex min-w-0 max-w-full items-baseline gap-1 pr-1">
              <span className="truncate text-xs text-zinc-500" title={c.spaceId} data-testid="conversation-space">
                {c.spaceId}
              </span>
              {from && (
                <span
                  className="shrink-0 rounded border border-zinc-300 px-1 text-[11px] leading-4 text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"
                  title={`Imported from ${from}, with its original dates`}
                  data-testid="conversation-imported"
                >
                  from {from}
                </span>
              )}
            </span>
            {mode === "delete" ? null : (
              <>
                <button
                  type="button"
                  className={BTN}
                  aria-label={`${c.pinned ? "Unpin" : "Pin"} ${c.title}`}
                  onClick={onPin}
                  disabled={busy}
                >
                  {c.pinned ? "Unpin" : "Pin"}
                </button>
                <button
                  type="button"
                  className={BTN}
                  aria-label={`Rename ${c.title}`}
                  onClick={() => (setTitle(c.title), setMode("rename"))}
                >
                  Rename
                </button>
                <button type="button" className={BTN} aria-label={`Export ${c.title} as Markdown`} onClick={onExport}>
                  Export
                </button>
                <button
                  type="button"
                  className={BTN}
                  aria-label={`Delete ${c.title}`}
                  onClick={() => setMode("delete")}
                >
                  Delete
                </button>
              </>
            )}
          </div>
          {mode === "delete" && (
            <DeleteChatConfirm id={c.id} busy={busy} onDelete={onDelete} onCancel={() => setMode("view")} />
          )}
        </>
      )}
    </li>
  );
}
