"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { eta, mb, pct } from "./format";
import { useSetupStatus } from "./use-setup-status";

const BOX = "mx-auto mt-3 max-w-5xl px-4";

/**
 * On every page: which embedding model serves memory and why (the offline fallback says so), the
 * background download of nomic-embed-text-v1.5 with its progress, the re-index that follows, and on the
 * chat pages which detected local server answers.
 */
export function ModelBanner() {
  const pathname = usePathname() ?? "/";
  const onLogin = pathname.startsWith("/login");
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
      <div key="dl">
        <p>
          <strong>Downloading {d.model}</strong>{" "}
          {d.phase === "downloading"
            ? `${p}% · ${mb(d.done)}${d.total ? ` of ${mb(d.total)}` : ""}${d.bytesPerSec ? ` · ${mb(d.bytesPerSec)}/s` : ""}${d.etaSec !== null && d.bytesPerSec ? ` · ${eta(d.etaSec)}` : ""}`
            : d.message}
          . Memo serves on the bundled offline model until it is done, then switches and re-indexes.
        </p>
        <progress className="mt-1 h-2 w-full" max={100} value={p} aria-label="Model download progress" />
      </div>,
    );
  } else if (s.reindex.active && s.reindex.progress) {
    const r = s.reindex.progress;
    rows.push(
      <div key="ri">
        <p>
          <strong>Re-indexing memories for {r.to.model}</strong>: {r.done} of {r.total}. Search uses keyword matches
          until it completes.
        </p>
        <progress
          className="mt-1 h-2 w-full"
          max={Math.max(1, r.total)}
          value={r.done}
          aria-label="Re-indexing memories"
        />
      </div>,
    );
  } else if (s.embedder.fallback) {
    rows.push(
      <p key="fb">
        <strong>Embedding model: the bundled offline model</strong> (Universal Sentence Encoder lite, 512-d; weaker
        recall than nomic-embed-text-v1.5).{" "}
        {d.phase === "offline" || d.phase === "failed" || d.phase === "skipped" ? d.message : s.embedder.reason}{" "}
        {(d.phase === "offline" || d.phase === "failed") && (
          <button type="button" className="ml-1 underline" onClick={() => retry.mutate()} disabled={retry.isPending}>
            Try the download again
          </button>
        )}
      </p>,
    );
  } else if (d.phase === "done" && !hideDone) {
    rows.push(
      <p key="done">
        <strong>Now using {s.embedder.model ?? d.model}</strong> (downloaded and verified at start; memories
        re-indexed).{" "}
        <button type="button" className="ml-1 underline" onClick={() => setHideDone(true)}>
          Hide
        </button>
      </p>,
    );
  } else if (s.embedder.status !== "ready" && s.embedder.status !== "unknown") {
    rows.push(<p key="st">Embedding server: {s.embedder.status}…</p>);
  }

  // The data folder cannot take writes (read-only or full): said first, since nothing new is being saved.
  if (s.storageProblem) {
    rows.unshift(
      <p key="storage" data-testid="storage-problem">
        <strong>Memo cannot save anything right now</strong>: {s.storageProblem} (the data folder is {s.data.dir}).
      </p>,
    );
  }

  const onChat = pathname === "/" || pathname.startsWith("/c/");
  const det = s.detection.chosen;
  if (onChat && s.chat.source === "detected" && det) {
    rows.push(
      <p key="det">
        <strong>Chatting through {det.name}</strong> found on this machine at {det.baseUrl} (model {det.model}).{" "}
        <Link href="/settings#models" className="underline">
          Switch or turn detection off in Settings
        </Link>
      </p>,
    );
  }
  if (!rows.length) return null;
  const tone = s.storageProblem
    ? "border-red-300 bg-red-50 dark:border-red-800 dark:bg-red-950"
    : s.embedder.fallback || d.phase === "failed"
      ? "border-sky-300 bg-sky-50 dark:border-sky-800 dark:bg-sky-950"
      : "border-emerald-300 bg-emerald-50 dark:border-emerald-800 dark:bg-emerald-950";
  return (
    <div className={BOX}>
      <div
        role="status"
        data-testid="model-banner"
        data-phase={d.phase}
        className={`space-y-2 rounded border px-3 py-2 text-sm ${tone}`}
      >
        {rows}
      </div>
    </div>
  );
}
