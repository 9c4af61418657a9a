"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UnkeptNotice } from "./unkept-notice";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { INPUT as SELECT } from "../_ui/styles";

const CHOICES = [
  { value: "", label: "Ask the first time" },
  { value: "on", label: "On" },
  { value: "pinned", label: "Pinned memories only" },
  { value: "off", label: "Off" },
] as const;

/**
 * Settings → Providers: which configured provider may receive recalled memories with a prompt. A provider
 * on this machine always does; a remote one (another host, LAN included) as chosen here or in the dialog
 * the chat page shows the first time. Also whether temporary chats read memory.
 */
export function MemorySharing() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const status = useQuery(trpc.privacy.status.queryOptions());
  const [notice, setNotice] = useState<string | null>(null);
  const done = (msg: string) => {
    setNotice(msg);
    void qc.invalidateQueries({ queryKey: trpc.privacy.status.queryKey() });
  };
  const setSharing = useMutation(
    trpc.privacy.setSharing.mutationOptions({ onSuccess: () => done("Memory sharing saved.") }),
  );
  const setTemporary = useMutation(
    trpc.privacy.setTemporaryReadsMemory.mutationOptions({ onSuccess: () => done("Temporary chat setting saved.") }),
  );
  const s = status.data;
  if (!s) return null;
  return (
    <fieldset
      className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="memory-sharing"
    >
      <legend className="px-1 text-sm font-semibold">Memory sharing</legend>
      <UnkeptNotice settings={["privacy"]} />
      <p className="text-xs text-zinc-500">
        Recalled memories go into the prompt of the provider that answers. Memories always stay stored on this machine;
        this decides what is sent with your messages. Under each reply, “Sent to …” shows exactly what went.
      </p>
      {s.providers.length === 0 && <p className="text-sm text-zinc-500">No provider is set up.</p>}
      <ul className="space-y-2">
        {s.providers.map((p) => (
          <li
            key={p.key}
            className="flex flex-wrap items-center justify-between gap-2 text-sm"
            data-testid="sharing-row"
            data-key={p.key}
          >
            <span>
              <span className="font-medium">{p.label}</span> <code className="text-xs">{p.host}</code>{" "}
              <span className="text-xs text-zinc-500">{p.local ? "· on this machine" : "· remote"}</span>
            </span>
            {p.local ? (
              <span className="text-xs text-zinc-500">
                Send recalled memories to this provider: always (nothing leaves the machine)
              </span>
            ) : (
              <label className="flex items-center gap-1">
                <span className="text-xs">Send recalled memories to this provider</span>
                <select
                  aria-label={`Send recalled memories to ${p.label} (${p.host})`}
                  className={SELECT}
                  value={p.sharing === "ask" ? "" : p.sharing}
                  disabled={setSharing.isPending}
                  onChange={(e) =>
                    setSharing.mutate({
                      key: p.key,
                      mode: e.target.value === "" ? null : (e.target.value as "on" | "off" | "pinned"),
                    })
                  }
                >
                  {CHOICES.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </li>
        ))}
      </ul>
      <label className="flex flex-wrap items-center gap-1 text-sm">
        <span>Temporary chats</span>
        <select
          aria-label="Temporary chats"
          className={SELECT}
          value={s.temporaryReadsMemory ? "read" : "no"}
          disabled={setTemporary.isPending}
          onChange={(e) => setTemporary.mutate({ read: e.target.value === "read" })}
        >
          <option value="read">read memory (never store any)</option>
          <option value="no">don&apos;t read memory</option>
        </select>
      </label>
      <p aria-live="polite" className="text-xs text-emerald-700 dark:text-emerald-400" data-testid="sharing-notice">
        {notice}
      </p>
    </fieldset>
  );
}
