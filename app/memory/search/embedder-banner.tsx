"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_trpc/client";

/** Which embedding model serves memory, and a clear note when it is the offline fallback. */
export function EmbedderBanner() {
  const trpc = useTRPC();
  const health = useQuery({ ...trpc.health.get.queryOptions(), refetchInterval: 5000 });
  const e = health.data?.embedder;
  if (!e) return null;
  const tone =
    e.status !== "ready"
      ? "border-amber-400 bg-amber-50 dark:bg-amber-950"
      : e.fallback
        ? "border-sky-300 bg-sky-50 dark:bg-sky-950"
        : "border-emerald-300 bg-emerald-50 dark:bg-emerald-950";
  return (
    <div role="status" data-testid="embedder-banner" className={`rounded border px-3 py-2 text-sm ${tone}`}>
      Embedding model: <strong>{e.model ?? "starting…"}</strong>
      {e.dim ? ` (${e.dim}-d)` : ""} — {e.status}
      {e.fallback && <span className="block text-xs opacity-80">Offline fallback in use: {e.note}</span>}
      {e.lastError && e.status !== "ready" && <span className="block text-xs opacity-80">{e.lastError}</span>}
    </div>
  );
}
