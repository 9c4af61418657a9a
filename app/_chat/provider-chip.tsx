"use client";

import Link from "next/link";
import { localTime } from "../_ui/local-time";

export interface Health {
  state: "ready" | "unreachable" | "not_configured";
  label: string | null;
  detail: string | null;
  checkedAt: string;
}

const STYLE: Record<Health["state"], { dot: string; text: string }> = {
  ready: { dot: "bg-emerald-500", text: "Ready" },
  unreachable: { dot: "bg-red-500", text: "Unreachable" },
  not_configured: { dot: "bg-amber-500", text: "Not configured" },
};

/** The selected provider's live state (re-checked by the chat status poll: server/chat/provider-health.ts). */
export function ProviderChip({ health }: { health: Health | undefined }) {
  if (!health) return null;
  const s = STYLE[health.state];
  const title = `${health.label ?? "Chat provider"}: ${s.text.toLowerCase()}${health.detail ? ` — ${health.detail}` : ""} (checked ${localTime(health.checkedAt)})`;
  return (
    <Link
      href="/settings#providers"
      className="inline-flex shrink-0 items-center gap-1.5 rounded-full border max-sm:min-h-6 border-zinc-300 px-2 py-0.5 text-xs font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
      data-testid="provider-chip"
      data-state={health.state}
      title={title}
      aria-label={title}
    >
      <span aria-hidden="true" className={`h-2 w-2 rounded-full ${s.dot}`} />
      <span aria-hidden="true">{s.text}</span>
    </Link>
  );
}
