"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { ProviderEndpoint, SharingMode } from "@/server/chat/memory-policy";
import type { Conversation } from "@/server/chat/conversations";
import { useTRPC } from "../_trpc/client";
import { localDateTime } from "../_ui/local-time";

const CHIP = "rounded-full border px-2 py-0.5 text-xs font-medium";
const BTN_SMALL =
  "rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";

/**
 * Under the conversation title: for a new conversation, the "Temporary chat" toggle; for an open one, its
 * memory chips (temporary, recall off, storing off) and the switches that turn recall and storing on or
 * off. An open temporary chat is kept alive by a heartbeat; once the tab closes, the server deletes it.
 */
export function ConversationMemoryBar({
  conversation,
  isNew,
  temporary,
  onTemporaryChange,
}: {
  conversation: Conversation | undefined;
  isNew: boolean;
  temporary: boolean;
  onTemporaryChange: (on: boolean) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const status = useQuery(trpc.privacy.status.queryOptions());
  const heartbeat = useMutation(trpc.privacy.heartbeat.mutationOptions());
  const setMemory = useMutation(
    trpc.privacy.setConversationMemory.mutationOptions({
      onSuccess: (c) => void qc.invalidateQueries({ queryKey: trpc.conversations.get.queryKey({ id: c.id }) }),
    }),
  );
  const beat = useRef(heartbeat.mutate);
  beat.current = heartbeat.mutate;

  const tempId = conversation?.temporary ? conversation.id : null;
  const every = status.data?.heartbeatMs ?? 30_000;
  useEffect(() => {
    if (!tempId) return;
    beat.current({ id: tempId });
    const t = setInterval(() => beat.current({ id: tempId }), every);
    return () => clearInterval(t);
  }, [tempId, every]);

  if (isNew) {
    const reads = status.data?.temporaryReadsMemory ?? true;
    return (
      <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="memory-bar">
        <label className="flex items-center gap-1">
          <input
            type="checkbox"
            checked={temporary}
            onChange={(e) => onTemporaryChange(e.target.checked)}
            data-testid="temporary-toggle"
          />
          Temporary chat
        </label>
        {temporary && (
          <span
            className={`${CHIP} border-violet-300 bg-violet-50 text-violet-800 dark:border-violet-800 dark:bg-violet-950 dark:text-violet-200`}
            data-testid="temporary-chip"
          >
            Temporary: {reads ? "reads memory but never stores any" : "no memory read or stored"}; deleted when this tab
            closes or after 24 hours
          </span>
        )}
      </div>
    );
  }
  if (!conversation) return null;
  const { recall, store } = conversation.memory;
  const until = conversation.expiresAt ? localDateTime(conversation.expiresAt) : null;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="memory-bar">
      {conversation.temporary && (
        <span
          className={`${CHIP} border-violet-300 bg-violet-50 text-violet-800 dark:border-violet-800 dark:bg-violet-950 dark:text-violet-200`}
          data-testid="temporary-chip"
        >
          Temporary chat: never stored as memory; deleted when this tab closes{until ? ` or at ${until}` : ""}
        </span>
      )}
      {!recall && (
        <span
          className={`${CHIP} border-amber-300 bg-amber-50 text-amber-800 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200`}
          data-testid="recall-off-chip"
        >
          Recall off
        </span>
      )}
      {!store && !conversation.temporary && (
        <span
          className={`${CHIP} border-amber-300 bg-amber-50 text-amber-800 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200`}
          data-testid="storing-off-chip"
        >
          Storing off
        </span>
      )}
      <button
        type="button"
        className={BTN_SMALL}
        disabled={setMemory.isPending}
        onClick={() => setMemory.mutate({ id: conversation.id, recall: !recall })}
      >
        {recall ? "Turn recall off" : "Turn recall on"}
      </button>
      {!conversation.temporary && (
        <button
          type="button"
          className={BTN_SMALL}
          disabled={setMemory.isPending}
          onClick={() => setMemory.mutate({ id: conversation.id, store: !store })}
        >
          {store ? "Turn storing off" : "Turn storing on"}
        </button>
      )}
    </div>
  );
}

export interface SharingQuestion {
  endpoint: ProviderEndpoint;
  memories: number;
  /** The message to send again once answered. */
  text: string;
}

/**
 * Asked once per remote provider and host, the first time a turn would send it memories: may recalled
 * memories go there? The answer is saved (Settings → Providers can change it) and the message is sent.
 */
export function SharingConsentDialog({
  question,
  onAnswered,
  onCancel,
}: {
  question: SharingQuestion;
  onAnswered: () => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const save = useMutation(
    trpc.privacy.setSharing.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.privacy.status.queryKey() });
        onAnswered();
      },
    }),
  );
  const answer = (mode: SharingMode) => save.mutate({ key: question.endpoint.key, mode });
  const { label, host } = question.endpoint;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere inside the modal cancels it
    <div
      className="fixed inset-0 z-50 flex items-center justify-center bg-black/40 p-4"
      onKeyDown={(e) => e.key === "Escape" && onCancel()}
    >
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="sharing-title"
        className="w-full max-w-md space-y-3 rounded-lg bg-white p-4 shadow-xl dark:bg-zinc-900"
        data-testid="sharing-dialog"
      >
        <h2 id="sharing-title" className="text-lg font-semibold">
          Send recalled memories to {label}?
        </h2>
        <p className="text-sm">
          This reply would include {question.memories} recalled memor{question.memories === 1 ? "y" : "ies"} in the
          prompt sent to <strong>{label}</strong> at <code className="break-all">{host}</code>, which is not on this
          machine. Your memories stay stored here either way; this decides whether they are sent there with your
          messages. You can change it later in Settings → Providers.
        </p>
        {save.error && (
          <p role="alert" className="text-sm text-red-700">
            {save.error.message}
          </p>
        )}
        <div className="flex flex-col gap-2">
          <button
            type="button"
            autoFocus
            className="rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900"
            disabled={save.isPending}
            onClick={() => answer("on")}
          >
            Send memories to {host}
          </button>
          <button
            type="button"
            className="rounded border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
            disabled={save.isPending}
            onClick={() => answer("pinned")}
          >
            Pinned memories only
          </button>
          <button
            type="button"
            className="rounded border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
            disabled={save.isPending}
            onClick={() => answer("off")}
          >
            Don&apos;t send memories
          </button>
          <button type="button" className="text-sm text-zinc-500 underline" onClick={onCancel}>
            Cancel (don&apos;t send this message)
          </button>
        </div>
      </div>
    </div>
  );
}
