"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState, type ReactNode } from "react";
import { useTRPC } from "../_trpc/client";
import { ProviderChip, type Health } from "./provider-chip";
import { ProviderPicker } from "./provider-picker";
import { SharedSpacesPicker, type SharedSpacesTarget } from "./shared-spaces";

/**
 * One compact row above the conversation: drawer button (phone), title, provider's live state, and the
 * chat's options — space, shared spaces, provider and model, and `children` (the memory bar) — which a
 * phone folds behind one "Chat options" button so the messages keep the screen.
 */
export function ChatToolbar({
  title,
  space,
  spaceLocked,
  sharedSpaces,
  onSpace,
  onOpenDrawer,
  health,
  children,
}: {
  title: string;
  space: string;
  spaceLocked: boolean;
  /** The open conversation, or a new chat's picks held until its first message: spaces shared with the person it adds. */
  sharedSpaces: SharedSpacesTarget;
  onSpace: (s: string) => void;
  onOpenDrawer: () => void;
  health: Health | undefined;
  children?: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const optionsId = useId();
  const trpc = useTRPC();
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  // The tab and the browser's history say which chat this is (other pages set theirs with metadata).
  useEffect(() => {
    document.title = `${title} · Memo`;
  }, [title]);
  return (
    <div className="shrink-0 border-b border-zinc-200 dark:border-zinc-800" data-testid="chat-toolbar">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-1.5">
        <button
          type="button"
          onClick={onOpenDrawer}
          aria-label="Open conversations"
          className="rounded border border-zinc-300 px-2 py-1 text-sm md:hidden dark:border-zinc-700"
        >
          <span aria-hidden="true">☰</span>
        </button>
        <h1 dir="auto" className="min-w-0 flex-1 truncate text-base font-semibold" data-testid="conversation-title">
          {title}
        </h1>
        <ProviderChip health={health} />
        <button
          type="button"
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          aria-controls={optionsId}
          aria-label="Chat options"
          className="rounded border border-zinc-300 px-2 py-1 text-sm sm:hidden dark:border-zinc-700"
        >
          Options
        </button>
        {/* On a phone the options open under the row, wrapping rather than scrolling sideways. */}
        <div
          id={optionsId}
          className={`${open ? "flex" : "hidden"} w-full flex-wrap items-center gap-x-3 gap-y-1 whitespace-nowrap sm:flex sm:w-auto`}
        >
          <label className="flex items-center gap-1 text-sm">
            <span className="text-zinc-500">Space</span>
            <select
              aria-label="Space"
              value={space}
              disabled={spaceLocked}
              title={
                spaceLocked ? "A conversation stays in its space" : "The space this conversation's memories belong to"
              }
              onChange={(e) => onSpace(e.target.value)}
              className="max-w-[10rem] rounded border border-zinc-300 bg-white px-2 py-0.5 dark:border-zinc-700 dark:bg-zinc-900"
            >
              {Array.from(new Set([space, ...(spaces.data ?? ["personal"])])).map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <SharedSpacesPicker target={sharedSpaces} />
          <ProviderPicker />
        </div>
      </div>
      {children && <div className={`${open ? "block" : "hidden"} px-3 pb-1 sm:block`}>{children}</div>}
    </div>
  );
}
