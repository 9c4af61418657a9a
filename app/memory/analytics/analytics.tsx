"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_trpc/client";
import { KIND_COLORS, OverTimeChart, RecallChart } from "./charts";
import { LifetimePanel } from "../lifetime-panel";
import { CARD, INPUT } from "../../_ui/styles";
import { localDate, localDateTime } from "../../_ui/local-time";

function Stat({ id, label, value, hint }: { id: string; label: string; value: number; hint?: string }) {
  return (
    <div className={CARD} data-testid={`stat-${id}`}>
      <dt className="text-xs text-zinc-500">{label}</dt>
      <dd className="text-2xl font-semibold tabular-nums" data-value={value}>
        {value.toLocaleString("en-US")}
      </dd>
      {hint && <dd className="text-xs text-zinc-500">{hint}</dd>}
    </div>
  );
}

export function Analytics() {
  const trpc = useTRPC();
  const [space, setSpace] = useState("");
  const [basis, setBasis] = useState<"timestamp" | "created">("timestamp");
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const q = useQuery(trpc.analytics.overview.queryOptions({ ...(space ? { space } : {}), basis }));
  const a = q.data;

  return (
    <div className="space-y-4">
      <form
        aria-label="Analytics scope"
        onSubmit={(e) => e.preventDefault()}
        className="flex flex-wrap items-center gap-3 text-sm"
      >
        <label className="flex items-center gap-2">
          Space
          <select value={space} onChange={(e) => setSpace(e.target.value)} className={`max-w-[12rem] ${INPUT}`}>
            <option value="">all spaces</option>
            {(spaces.data ?? []).map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2">
          Over time by
          <select value={basis} onChange={(e) => setBasis(e.target.value as "timestamp" | "created")} className={INPUT}>
            <option value="timestamp">when it happened</option>
            <option value="created">when it was stored</option>
          </select>
        </label>
        {/* Always there (shown or not), so a refresh after a job run does not move the page. */}
        <span className={`text-xs text-zinc-500 ${q.isFetching ? "" : "invisible"}`} aria-hidden={!q.isFetching}>
          Updating…
        </span>
      </form>

      {q.error && (
        <p
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {q.error.message}
        </p>
      )}

      {a && (
        <>
          <dl className="grid grid-cols-2 gap-3 md:grid-cols-5" aria-label="Totals">
            {/* Each figure says what it counts, so that side by side they agree. */}
            <Stat id="memories" label="Memories" value={a.totals.memories} hint="live now (not deleted)" />
            <Stat id="pinned" label="Pinned" value={a.totals.pinned} hint="of the live memories" />
            <Stat
              id="added-week"
              label="Added this week"
              value={a.totals.addedThisWeek}
              hint={`stored in the last 7 days; ${a.totals.addedThisWeekLive} still live, ${a.totals.addedThisWeek - a.totals.addedThisWeekLive} since deleted or merged`}
            />
            <Stat
              id="expiring"
              label="Deletes expiring ≤ 7 days"
              value={a.totals.expiringWithin7Days}
              hint={`${a.totals.softDeleted} soft-deleted; purged after ${a.retentionDays} days`}
            />
            <Stat
              id="retrievals"
              label="Retrievals (all time)"
              value={a.totals.retrievals}
              hint="times a live memory was recalled into a prompt"
            />
          </dl>

          <div className="grid gap-4 lg:grid-cols-3">
            <figure className={`${CARD} min-w-0 lg:col-span-2`} data-testid="chart-over-time">
              <figcaption className="mb-2 text-sm font-semibold">
                Memories over time by kind{" "}
                <span className="font-normal text-zinc-500">
                  (per {a.overTime.bucket}, {basis === "timestamp" ? "by when it happened" : "by when it was stored"})
                </span>
              </figcaption>
              {a.overTime.points.length ? (
                <OverTimeChart points={a.overTime.points} />
              ) : (
                <p className="py-10 text-center text-sm text-zinc-500">No memories yet.</p>
              )}
              {a.overTime.earlier && (
                <p className="mt-1 text-xs text-zinc-500" data-testid="over-time-earlier">
                  The first bar counts the {a.overTime.earlier.count.toLocaleString("en-US")} older memor
                  {a.overTime.earlier.count === 1 ? "y" : "ies"} (from {localDate(a.overTime.earlier.from)}), so that
                  they do not stretch the axis.
                </p>
              )}
              <p className="mt-1 text-xs text-zinc-500">
                Live memories per {a.overTime.bucket}; the bars add up to the{" "}
                {a.totals.memories.toLocaleString("en-US")} memories above.
              </p>
            </figure>
            <div className={`${CARD} min-w-0`}>
              <h2 className="mb-2 text-sm font-semibold">By kind</h2>
              <ul className="space-y-1 text-sm" data-testid="by-kind">
                {Object.entries(a.totals.byKind).map(([k, n]) => (
                  <li key={k} className="flex items-center justify-between gap-2">
                    <span className="flex items-center gap-2">
                      <span
                        className="inline-block h-3 w-3 rounded-sm"
                        style={{ background: KIND_COLORS[k] }}
                        aria-hidden="true"
                      />
                      {k}
                    </span>
                    <span className="tabular-nums">{n}</span>
                  </li>
                ))}
              </ul>
            </div>
          </div>

          <div className="grid gap-4 lg:grid-cols-2">
            <figure className={`${CARD} min-w-0`} data-testid="chart-recall">
              <figcaption className="mb-2 text-sm font-semibold">
                Recall activity, last 30 days
                {a.retrievalsByDay.every((d) => d.retrievals === 0) && (
                  <span className="font-normal text-zinc-500"> — no memory recalled in this period</span>
                )}
              </figcaption>
              <RecallChart points={a.retrievalsByDay} />
              <p className="mt-1 text-xs text-zinc-500">
                Memories recalled into a prompt each day (one per memory per recall, from the retrieval log).
              </p>
            </figure>
            <div className={`${CARD} min-w-0`}>
              <h2 className="mb-2 text-sm font-semibold">Most retrieved</h2>
              {a.topRetrieved.length === 0 ? (
                <p className="text-sm text-zinc-500">Nothing has been recalled yet.</p>
              ) : (
                <ol className="space-y-2" data-testid="top-retrieved">
                  {a.topRetrieved.map((m) => (
                    <li key={m.id} className="flex gap-3 text-sm">
                      <span className="w-10 shrink-0 text-right font-semibold tabular-nums">{m.retrievalCount}×</span>
                      <span className="min-w-0">
                        <span className="line-clamp-2 break-words">{m.content}</span>
                        <span className="text-xs text-zinc-500">
                          {m.spaceId} · {m.kind} · last {localDateTime(m.lastRetrievedAt)}
                          {m.pinned ? " · pinned" : ""}
                        </span>
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          </div>

          <LifetimePanel space={space || undefined} />
          {a.expiringSoon.length > 0 && (
            <div className={CARD}>
              <h2 className="mb-2 text-sm font-semibold">Soft-deleted, purged within 7 days</h2>
              <ul className="space-y-1 text-sm" data-testid="expiring-soon">
                {a.expiringSoon.map((m) => (
                  <li key={m.id} className="flex flex-wrap gap-x-3">
                    <span className="shrink-0 tabular-nums text-zinc-500">{localDate(m.purgeAt)}</span>
                    <span className="min-w-0 truncate">{m.content}</span>
                  </li>
                ))}
              </ul>
              <p className="mt-1 text-xs text-zinc-500">Restore them from the Manager (status: deleted) before then.</p>
            </div>
          )}
        </>
      )}
    </div>
  );
}
