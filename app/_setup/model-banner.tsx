"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { eta, mb, pct } from "./format";
import { useDismissed } from "../_ui/use-remembered";
import { useSetupStatus } from "./use-setup-status";

const BOX = "mx-auto mt-2 max-w-5xl space-y-1 px-4 empty:hidden";

/**
 * One notice: a one-line summary, what else there is to know behind "Details", and a Dismiss that this
 * browser remembers (keyed by what the notice is about, so a new situation shows again).
 */
function Notice({
  id,
  tone,
  summary,
  details,
  progress,
}: {
  id: string;
  tone: string;
  summary: React.ReactNode;
  details?: React.ReactNode;
  progress?: React.ReactNode;
}) {
  const [dismissed, dismiss] = useDismissed(`banner:${id}`);
  if (dismissed) return null;
  return (
    <div className={`rounded border px-2 py-1 text-xs sm:text-sm ${tone}`} data-testid="banner-notice" data-id={id}>
      <div className="flex items-start gap-2">
        <div className="min-w-0 flex-1">
          {details ? (
            <details>
              <summary className="cursor-pointer">{summary}</summary>
              <div className="mt-1">{details}</div>
            </details>
          ) : (
            summary
          )}
        </div>
        <button
          type="button"
          onClick={dismiss}
          aria-label="Dismiss this notice"
          title="Dismiss (remembered in this browser)"
          className="inline-flex min-h-6 min-w-6 shrink-0 items-center justify-center rounded px-1 leading-5 text-zinc-500 hover:bg-black/10 hover:text-zinc-900 dark:hover:bg-white/10 dark:hover:text-zinc-100"
        >
          <span aria-hidden="true">✕</span>
        </button>
      </div>
      {progress}
    </div>
  );
}

const INFO = "border-sky-300 bg-sky-50 dark:border-sky-800 dark:bg-sky-950";
const GOOD = "border-emerald-300 bg-emerald-50 dark:border-emerald-800 dark:bg-emerald-950";

/**
 * On every page: which embedding model serves memory and why (the offline fallback says so), the
 * background download of nomic-embed-text-v1.5 with its progress, the re-index that follows, and on the
 * chat pages which detected local server answers.
 */
export function ModelBanner() {
  const pathname = usePathname() ?? "/";
  // Not on the sign-in page, nor on the password change page (a person who must change theirs may read nothing else).
  const onLogin = pathname.startsWith("/login") || pathname === "/password";
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useSetupStatus(!onLogin);
  const [hideDone, setHideDone] = useState(false);
  const retry = useMutation(
    trpc.setup.retryDownload.mutationOptions({ onSuccess: (d) => qc.setQueryData(trpc.setup.status.queryKey(), d) }),
  );
  if (onLogin || !q.data) return null;
  const s = q.data;
  const d = s.download;
  const rows: React.ReactNode[] = [];

  if (d.phase === "downloading" || d.phase === "verifying" || d.phase === "switching") {
    const p = pct(d.done, d.total);
    rows.push(
      <Notice
        key="dl"
        id={`dl:${d.model}`}
        tone={GOOD}
        summary={
          <>
            <strong>Downloading {d.model}</strong>{" "}
            {d.phase === "downloading"
              ? `${p}% · ${mb(d.done)}${d.total ? ` of ${mb(d.total)}` : ""}${d.bytesPerSec ? ` · ${mb(d.bytesPerSec)}/s` : ""}${d.etaSec !== null && d.bytesPerSec ? ` · ${eta(d.etaSec)}` : ""}`
              : d.message}
          </>
        }
        details="Memo serves on the bundled offline model until it is done, then switches and re-indexes."
        progress={<progress className="mt-1 h-1.5 w-full" max={100} value={p} aria-label="Model download progress" />}
      />,
    );
  } else if (s.reindex.active && s.reindex.progress) {
    const r = s.reindex.progress;
    rows.push(
      <Notice
        key="ri"
        id={`ri:${r.to.model}`}
        tone={GOOD}
        summary={
          <>
            <strong>Re-indexing memories for {r.to.model}</strong>:{" "}
            {r.unit === "percent" ? `${r.done}%` : `${r.done} of ${r.total}`}
          </>
        }
        details="Search uses keyword matches until it completes."
        progress={
          <progress
            className="mt-1 h-1.5 w-full"
            max={Math.max(1, r.total)}
            value={r.done}
            aria-label="Re-indexing memories"
          />
        }
      />,
    );
  } else if (s.embedder.fallback) {
    rows.push(
      <Notice
        key="fb"
        id={`fb:${d.phase}`}
        tone={INFO}
        summary={
          <>
            <strong>Embedding model: the bundled offline model</strong> (weaker recall)
          </>
        }
        details={
          <>
            Universal Sentence Encoder lite, 512-d; weaker recall than nomic-embed-text-v1.5.{" "}
            {d.phase === "offline" || d.phase === "failed" || d.phase === "skipped" ? d.message : s.embedder.reason}{" "}
            {(d.phase === "offline" || d.phase === "failed") && (
              <button
                type="button"
                className="ml-1 underline"
                onClick={() => retry.mutate()}
                disabled={retry.isPending}
              >
                Try the download again
              </button>
            )}
          </>
        }
      />,
    );
  } else if (d.phase === "done" && !hideDone) {
    rows.push(
      <div key="done" className={`rounded border px-2 py-1 text-xs sm:text-sm ${GOOD}`}>
        <strong>Now using {s.embedder.model ?? d.model}</strong> (downloaded and verified at start; memories
        re-indexed).{" "}
        <button type="button" className="ml-1 underline" onClick={() => setHideDone(true)}>
          Hide
        </button>
      </div>,
    );
  } else if (s.embedder.status !== "ready" && s.embedder.status !== "unknown") {
    rows.push(
      <p key="st" className={`rounded border px-2 py-1 text-xs sm:text-sm ${INFO}`}>
        Embedding server: {s.embedder.status}…
      </p>,
    );
  }

  // The data folder cannot take writes (read-only or full): said first, since nothing new is being saved.
  if (s.storageProblem) {
    rows.unshift(
      <p
        key="storage"
        data-testid="storage-problem"
        className="rounded border border-red-300 bg-red-50 px-2 py-1 text-xs sm:text-sm dark:border-red-800 dark:bg-red-950"
      >
        <strong>Memo cannot save anything right now</strong>: {s.storageProblem}
        {s.data ? ` (the data folder is ${s.data.dir})` : " (tell whoever runs this Memo server)"}.
      </p>,
    );
  }

  const onChat = pathname === "/" || pathname.startsWith("/c/");
  const det = s.detection.chosen;
  if (onChat && s.chat.source === "detected" && det) {
    rows.push(
      <Notice
        key="det"
        id={`det:${det.baseUrl}:${det.model}`}
        tone={GOOD}
        summary={
          <>
            <strong>Chatting through {det.name}</strong> (model {det.model})
          </>
        }
        details={
          <>
            Found on this machine at {det.baseUrl}.{" "}
            <Link href="/settings#models" className="underline">
              Switch or turn detection off in Settings
            </Link>
          </>
        }
      />,
    );
  }
  if (!rows.length) return null;
  return (
    <div className={BOX} role="status" data-testid="model-banner" data-phase={d.phase}>
      {rows}
    </div>
  );
}
