"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UnkeptNotice } from "./unkept-notice";
import { useId, useState } from "react";
import { useTRPC } from "../_trpc/client";
import { LearnFacts } from "../_ui/learn-facts";
import { INPUT } from "../_ui/styles";
import { LEARNING_SETTING, learningHint } from "@/server/chat/learning-fields";
import { ErrorAlert, SettingsSection } from "../_ui/ui";

/**
 * Settings → Learning facts (docs/facts.md): after each exchange, one extra structured call to a model
 * writes the short facts it states and says which known facts they replace. Per provider: on or off (on by
 * default on this machine, off for a remote provider), the calls made, and why one would not learn (memory
 * sharing). The queue's progress, and "learn from my existing memory" with its count first.
 */
export function LearningSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const spaceId = useId();
  const status = useQuery(
    trpc.learning.status.queryOptions(undefined, {
      refetchInterval: (q) =>
        (q.state.data?.queue.queued ?? 0) + (q.state.data?.queue.running ?? 0) > 0 ? 2000 : false,
    }),
  );
  const spaces = useQuery(trpc.spaces.list.queryOptions());
  const [space, setSpace] = useState("personal");
  const [notice, setNotice] = useState<string | null>(null);
  const set = useMutation(
    trpc.learning.setProvider.mutationOptions({
      onSuccess: (r, v) => {
        const p = status.data?.providers.find((x) => x.key === v.key);
        setNotice(
          r.on
            ? `Learning facts is on for ${p?.label ?? v.key}: each exchange costs one extra call${p && !p.local ? ` to ${p.host}` : ""}.`
            : `Learning facts is off for ${p?.label ?? v.key}.`,
        );
        void qc.invalidateQueries({ queryKey: trpc.learning.status.queryKey() });
      },
    }),
  );
  const s = status.data;
  const q = s?.queue;
  return (
    <SettingsSection
      anchor="learning"
      headingId="learning-heading"
      title="Learning facts"
      testId="learning-section"
      gap="space-y-3"
      intro={
        <p className="text-sm text-zinc-500">
          After each exchange Memo asks a model once for the short facts it states about you (“Lena lives in Porto”) and
          which facts they replace. The local chat model is used when there is one, else the provider the conversation
          used. Temporary chats and chats with memory off teach nothing. What each call sent is shown under the reply,
          like “Sent to”.
        </p>
      }
    >
      <UnkeptNotice settings={["facts.learning"]} />
      {(status.error ?? set.error) && <ErrorAlert>{(status.error ?? set.error)!.message}</ErrorAlert>}
      {s && s.providers.length === 0 && <p className="text-sm text-zinc-500">No provider is set up.</p>}
      <ul className="space-y-2">
        {s?.providers.map((p) => (
          <li key={p.key} className="text-sm" data-testid="learning-row" data-key={p.key} data-on={p.on}>
            <label className="flex items-start gap-2">
              <input
                type="checkbox"
                className="mt-1"
                checked={p.on}
                disabled={set.isPending}
                onChange={(e) => set.mutate({ key: p.key, on: e.target.checked })}
                aria-describedby={`${p.key}-learning-cost`}
              />
              <span className="min-w-0">
                {LEARNING_SETTING.field.label} <span className="font-medium">{p.label}</span>{" "}
                <code className="break-all text-xs">{p.host}</code>{" "}
                <span className="text-xs text-zinc-500" id={`${p.key}-learning-cost`}>
                  {learningHint(p.local)}
                </span>
              </span>
            </label>
            <p className="ml-6 text-xs text-zinc-500" data-testid="learning-calls">
              {p.calls
                ? `${p.calls.calls} call${p.calls.calls === 1 ? "" : "s"} made · ${p.calls.ok} answered well · ${p.calls.badOutput} bad output · ${p.calls.providerErrors} provider error${p.calls.providerErrors === 1 ? "" : "s"}`
                : "No calls made yet."}
            </p>
            {p.blocked && (
              <p className="ml-6 text-xs text-amber-700 dark:text-amber-400" data-testid="learning-blocked">
                Not learning: {p.blocked}
              </p>
            )}
          </li>
        ))}
      </ul>
      {q && (
        <p className="text-sm" data-testid="learning-queue" aria-live="polite">
          {q.queued + q.running > 0
            ? `Learning: ${q.queued + q.running} exchange${q.queued + q.running === 1 ? "" : "s"} to go`
            : "Nothing waiting to be learned"}{" "}
          · {q.factsAdded} fact{q.factsAdded === 1 ? "" : "s"} learned from {q.done} exchange{q.done === 1 ? "" : "s"}
          {q.failed ? ` · ${q.failed} could not be learned from (kept as memories)` : ""}
        </p>
      )}
      <div className="space-y-1 rounded border border-zinc-200 p-3 dark:border-zinc-800">
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span className="font-medium">Learn from my existing memory</span>
          <label htmlFor={spaceId} className="text-xs text-zinc-500">
            in space
          </label>
          <select
            id={spaceId}
            className={`${INPUT} max-w-full`}
            value={space}
            onChange={(e) => setSpace(e.target.value)}
          >
            {(spaces.data ?? [{ id: "personal" }]).map((x) => (
              <option key={x.id} value={x.id}>
                {x.id}
              </option>
            ))}
          </select>
        </div>
        <p className="text-xs text-zinc-500">
          Memories stored before learning was on (or with another provider): the number of calls is shown before
          anything is sent.
        </p>
        <LearnFacts key={space} kind="backfill" space={space} label={`your memory in ${space}`} />
      </div>
      <p aria-live="polite" className="text-xs text-emerald-700 dark:text-emerald-400" data-testid="learning-notice">
        {notice}
      </p>
    </SettingsSection>
  );
}
