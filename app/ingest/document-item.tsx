"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { LearnFacts } from "../_ui/learn-facts";
import { localDateTime } from "../_ui/local-time";
import { BTN } from "../_ui/styles";
import { useTRPC } from "../_trpc/client";
import { isReading, overallPercent, progressLabel } from "./progress-percent";

/**
 * One document of the Ingest page's list: its status, its progress while it is read, counted and embedded
 * (stage, rate, time left), what is still live of it, and its actions (cancel, delete, re-ingest, restore,
 * learn facts from it). The page (ingest.tsx) uploads and polls; this renders one row of what it polled.
 */
type Status = "queued" | "processing" | "done" | "failed" | "cancelled";

const STATUS_STYLE: Record<Status, string> = {
  queued: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  processing: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100",
  done: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  failed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
  cancelled: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
};

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export interface DocumentView {
  id: string;
  name: string;
  size: number;
  status: Status;
  error: string | null;
  chunksTotal: number;
  chunksDone: number;
  memories: number;
  forgotten: number;
  forgottenAt: string | null;
  createdAt: string;
  canReingest: boolean;
  queuePosition: number | null;
  stage: {
    name: "reading" | "counting" | "embedding";
    done: number;
    total: number;
    startedAt: string;
    doneAtStart: number;
  } | null;
}

/**
 * "0 of 3 passages live — forgotten on …": a done document some of whose passages were forgotten (/forget,
 * the Manager) or purged since. Null when all of it is live.
 */
function livenessText(doc: DocumentView): string | null {
  if (doc.status !== "done") return null;
  const total = Math.max(doc.chunksTotal, doc.memories + doc.forgotten);
  if (doc.memories >= total) return null;
  const head = `${doc.memories} of ${total} passages live`;
  if (doc.forgottenAt) return `${head} — forgotten on ${localDateTime(doc.forgottenAt)}`;
  return `${head} — the rest were forgotten and purged`;
}

/** "about 40 s left" from the stage's rate so far; null until there is one to go by. */
function timeLeft(stage: NonNullable<DocumentView["stage"]>, now: number): string | null {
  const elapsed = (now - Date.parse(stage.startedAt)) / 1000;
  const moved = stage.done - stage.doneAtStart;
  if (moved <= 0 || elapsed < 0.5 || stage.total <= 0) return null;
  const s = Math.ceil(((stage.total - stage.done) / moved) * elapsed);
  if (s <= 0) return null;
  return s < 60 ? `about ${s} s left` : `about ${Math.round(s / 60)} min left`;
}

/**
 * A document's bar and label, one figure (progress-percent.ts): queued (and how many ahead), then the whole's
 * percentage with the step — counting the text's tokens (step 1 of 2), embedding its chunks (step 2 of 2) —
 * and its time left, then done.
 */
function Progress({ doc }: { doc: DocumentView }) {
  const stage = doc.status === "processing" ? doc.stage : null;
  const reading = isReading(doc);
  const overall = overallPercent(doc);
  const label = progressLabel(doc, stage ? timeLeft(stage, Date.now()) : null);
  return (
    <div className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
      <div
        role="progressbar"
        aria-label={`Progress of ${doc.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={reading ? undefined : overall}
        aria-valuetext={label}
        className="h-2 min-w-32 flex-1 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
      >
        <div
          className={`h-2 rounded transition-[width] duration-300 ${doc.status === "done" ? "bg-emerald-600" : "bg-sky-600"} ${reading ? "w-1/4 animate-pulse" : ""}`}
          style={reading ? undefined : { width: `${overall}%` }}
        />
      </div>
      <span className="shrink-0 text-right tabular-nums text-zinc-600 dark:text-zinc-400" data-testid="progress-text">
        {label}
      </span>
    </div>
  );
}

export function DocumentItem({ doc, onChanged }: { doc: DocumentView; onChanged: () => void }) {
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (!confirming) return;
    const t = setTimeout(() => setConfirming(false), 4000);
    return () => clearTimeout(t);
  }, [confirming]);
  const del = useMutation(trpc.documents.delete.mutationOptions({ onSuccess: onChanged }));
  const reingest = useMutation(trpc.documents.reingest.mutationOptions({ onSuccess: onChanged }));
  const restore = useMutation(trpc.documents.restore.mutationOptions({ onSuccess: onChanged }));
  const cancel = useMutation(trpc.documents.cancel.mutationOptions({ onSuccess: onChanged }));
  const active = doc.status === "queued" || doc.status === "processing";
  const actionError = del.error ?? reingest.error ?? cancel.error ?? restore.error;
  const liveness = livenessText(doc);
  // A done document nothing of which is live reads "forgotten", not "done".
  const shownStatus = doc.status === "done" && doc.memories === 0 && liveness ? "forgotten" : doc.status;
  return (
    <li data-testid="document" data-status={doc.status} aria-label={doc.name} className="py-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span data-testid="document-name" className="min-w-0 break-all font-medium">
          {doc.name}
        </span>
        <span
          data-testid="document-status"
          className={`rounded px-2 py-0.5 text-xs font-medium ${shownStatus === "forgotten" ? STATUS_STYLE.cancelled : STATUS_STYLE[doc.status]}`}
        >
          {shownStatus}
        </span>
        <span className="text-xs text-zinc-500">
          {formatBytes(doc.size)} ·{" "}
          {doc.status === "done"
            ? `${doc.chunksTotal} chunk${doc.chunksTotal === 1 ? "" : "s"} · `
            : doc.chunksTotal
              ? `${doc.chunksDone}/${doc.chunksTotal} chunks · `
              : ""}
          added{" "}
          <time dateTime={doc.createdAt} title={doc.createdAt} suppressHydrationWarning>
            {localDateTime(doc.createdAt)}
          </time>
        </span>
        <div className="ml-auto flex gap-2">
          {doc.forgotten > 0 && doc.status === "done" && (
            <button
              type="button"
              className={BTN}
              disabled={restore.isPending}
              onClick={() => restore.mutate({ id: doc.id })}
              aria-label={`Restore ${doc.name}`}
            >
              Restore
            </button>
          )}
          {active && (
            <button
              type="button"
              className={BTN}
              disabled={cancel.isPending}
              onClick={() => cancel.mutate({ id: doc.id })}
              aria-label={`Cancel ${doc.name}`}
            >
              Cancel
            </button>
          )}
          {doc.canReingest && (
            <button
              type="button"
              className={BTN}
              disabled={reingest.isPending}
              onClick={() => reingest.mutate({ id: doc.id })}
              aria-label={`Re-ingest ${doc.name}`}
            >
              Re-ingest
            </button>
          )}
          {doc.status === "failed" ? (
            // Nothing of a failed file was kept: its row goes at once, no confirmation.
            <button
              type="button"
              className={BTN}
              disabled={del.isPending}
              aria-label={`Dismiss ${doc.name}`}
              onClick={() => del.mutate({ id: doc.id })}
            >
              Dismiss
            </button>
          ) : (
            <button
              type="button"
              className={`${BTN} ${confirming ? "border-red-400 text-red-700 dark:text-red-300" : ""}`}
              disabled={del.isPending}
              aria-label={confirming ? `Confirm delete ${doc.name}` : `Delete ${doc.name}`}
              onClick={() => (confirming ? del.mutate({ id: doc.id }) : setConfirming(true))}
            >
              {confirming ? "Confirm delete" : "Delete"}
            </button>
          )}
        </div>
      </div>
      {/* A full green bar would say "all there" of a document that is partly or wholly forgotten. */}
      {doc.status !== "failed" && doc.status !== "cancelled" && !liveness && <Progress doc={doc} />}
      {liveness && (
        <p data-testid="document-liveness" className="mt-1 text-sm text-amber-800 dark:text-amber-300">
          {liveness}
        </p>
      )}
      {doc.error && (
        <p data-testid="document-error" className="mt-1 text-sm text-red-700 dark:text-red-300">
          {doc.error}
        </p>
      )}
      {doc.status === "cancelled" && <p className="mt-1 text-xs text-zinc-500">Cancelled; nothing of it was kept.</p>}
      {doc.status === "done" && <LearnFacts kind="document" target={doc.id} label={doc.name} />}
      {actionError && (
        <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300">
          {actionError.message}
        </p>
      )}
    </li>
  );
}
