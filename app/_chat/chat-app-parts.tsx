"use client";

import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import type { MouseEventHandler, ReactNode } from "react";
import type { AppRouter } from "@/server/api/root";
import { ConnectModelCard } from "./connect-model";
import { ShareNotices } from "./share-notices";

type ChatStatus = inferRouterOutputs<AppRouter>["chat"]["status"];

/** The conversation list as a drawer on a phone: a modal over the page, closed by Esc, the backdrop or Close. */
export function ConversationDrawer({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  return (
    <div
      className="fixed inset-0 z-40 md:hidden"
      role="dialog"
      aria-modal="true"
      aria-label="Conversations"
      // Esc closes the drawer (and only that: a reply being written goes on).
      onKeyDown={(e) => {
        if (e.key !== "Escape" || e.nativeEvent.isComposing) return;
        e.preventDefault();
        onClose();
      }}
    >
      <button
        type="button"
        aria-label="Close conversations"
        className="absolute inset-0 bg-black/40"
        onClick={onClose}
      />
      <aside className="absolute inset-y-0 left-0 flex w-[85%] max-w-xs flex-col gap-2 bg-zinc-50 p-3 shadow-xl dark:bg-zinc-950">
        <button
          type="button"
          autoFocus
          className="self-end rounded px-2 py-1 text-sm hover:bg-zinc-200 dark:hover:bg-zinc-800"
          onClick={onClose}
        >
          Close
        </button>
        {children}
      </aside>
    </div>
  );
}

/**
 * What stands above the conversation: spaces shared with you, connecting a model when chat is not ready,
 * exchanges that could not be saved, and a conversation that does not exist.
 */
export function ChatNotices({ status: st, notFound }: { status: ChatStatus | undefined; notFound: boolean }) {
  return (
    <div className="shrink-0 space-y-1 empty:hidden">
      <ShareNotices />
      {st && !st.ready && <ConnectModelCard unready={st.unready} selected={st.active !== null} />}
      {st && st.persist.failed.length > 0 && (
        <p className="mx-3 mt-2 rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
          {st.persist.failed.length} exchange(s) could not be saved to memory ({st.persist.failed.at(-1)?.error}); they
          will be retried at the next start.
        </p>
      )}
      {notFound && (
        <p
          role="alert"
          className="mx-3 mt-2 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          This conversation does not exist (it may have been deleted).{" "}
          <Link href="/" className="underline">
            Start a new one
          </Link>
          .
        </p>
      )}
    </div>
  );
}

/** A new conversation's first line: what chat recalls and the memory commands. */
export function EmptyChatHint() {
  return (
    <li
      className="rounded border border-dashed border-zinc-300 p-4 text-sm text-zinc-500 dark:border-zinc-700"
      data-testid="empty-chat-hint"
    >
      Ask anything: what you said in earlier conversations is recalled by meaning and by keyword, and shown under each
      reply. Type <code>/remember &lt;text&gt;</code> to pin a fact, <code>/forget &lt;pattern&gt;</code> to forget,{" "}
      <code>/help</code> for commands and keyboard shortcuts.
    </li>
  );
}

/** Shown while the reader has scrolled away from the newest message. */
export function JumpToLatest({ onClick }: { onClick: MouseEventHandler<HTMLButtonElement> }) {
  return (
    <button
      type="button"
      onClick={onClick}
      className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full border border-zinc-300 bg-white px-3 py-1 text-sm font-medium shadow hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"
    >
      Jump to latest <span aria-hidden="true">↓</span>
    </button>
  );
}
