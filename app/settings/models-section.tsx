"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { FirstRunChecklist } from "../_setup/first-run-checklist";
import { mb } from "../_setup/format";
import { useSetupStatus } from "../_setup/use-setup-status";
import { BTN } from "../_ui/styles";

/**
 * Settings → Models: the embedding model and its engine, the GGUFs in data/models/ (pick one to chat
 * with on the local llama.cpp server), local provider detection (switch, keep, turn off), which llama.cpp
 * build runs (CPU or a GPU variant), and the first-run checklist again.
 */
export function ModelsSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useSetupStatus();
  const [error, setError] = useState<string | null>(null);
  const opts = {
    onSuccess: (d: unknown) => {
      setError(null);
      qc.setQueryData(trpc.setup.status.queryKey(), d as never);
      void qc.invalidateQueries({ queryKey: trpc.providers.status.queryKey() });
    },
    onError: (e: { message: string }) => setError(e.message),
  };
  const pickLocal = useMutation(trpc.setup.useLocalModel.mutationOptions(opts));
  const setDetection = useMutation(trpc.setup.setDetection.mutationOptions(opts));
  const recheck = useMutation(trpc.setup.recheckDetection.mutationOptions(opts));
  const prefer = useMutation(trpc.setup.preferDetected.mutationOptions(opts));
  const keep = useMutation(trpc.setup.useDetected.mutationOptions(opts));
  const showChecklist = useMutation(trpc.setup.setChecklistDismissed.mutationOptions(opts));
  const s = q.data;

  return (
    <section
      id="models"
      aria-labelledby="models-heading"
      className="space-y-4 rounded border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id="models-heading" className="text-lg font-semibold">
        Models
      </h2>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
      {!s ? (
        <p className="text-sm text-zinc-500">Loading…</p>
      ) : (
        <>
          <div className="text-sm">
            <h3 className="font-medium">Embedding</h3>
            <p data-testid="embedding-model">
              {s.embedder.model ?? "…"} {s.embedder.dim ? `(${s.embedder.dim}-d)` : ""} —{" "}
              {s.embedder.fallback ? "bundled offline fallback" : "GGUF"}. {s.embedder.reason}
            </p>
            {s.download.message && (
              <p className="text-zinc-600 dark:text-zinc-400">
                Download: {s.download.phase} — {s.download.message}
              </p>
            )}
          </div>

          <div className="text-sm">
            <h3 className="font-medium">Local GGUF models ({s.localModels.length})</h3>
            {s.localModels.length === 0 ? (
              <p className="text-zinc-600 dark:text-zinc-400">
                None in the models folder. <code>npm run models:pull -- --chat</code> downloads Qwen2.5-1.5B-Instruct
                (Q4_K_M, ~1.1 GB, Apache-2.0) for fully local chat.
              </p>
            ) : (
              <ul className="mt-1 space-y-1" aria-label="Local GGUF models">
                {s.localModels.map((m) => {
                  const current = s.chat.provider === "llama" && s.chat.model === m.file.replace(/\.gguf$/i, "");
                  return (
                    <li key={m.path} className="flex flex-wrap items-center gap-2">
                      <code className="break-all">{m.file}</code>
                      <span className="text-zinc-500">
                        {mb(m.bytes)} · {m.kind === "embedding" ? "embedding model" : "chat"}
                      </span>
                      {m.kind === "chat" &&
                        (current ? (
                          <span className="text-xs font-medium text-emerald-700 dark:text-emerald-400">
                            chat uses this
                          </span>
                        ) : (
                          <button
                            type="button"
                            className={BTN}
                            onClick={() => pickLocal.mutate({ path: m.path })}
                            disabled={pickLocal.isPending}
                          >
                            Chat with this
                          </button>
                        ))}
                    </li>
                  );
                })}
              </ul>
            )}
          </div>

          <div className="text-sm">
            <h3 className="font-medium">Local provider detection</h3>
            <p data-testid="detection-status">
              {s.detection.enabled
                ? `On: with no provider configured, Memo looks for an OpenAI-compatible server on 127.0.0.1 ports ${s.detection.ports.join(", ")}.`
                : `Off (${s.detection.disabledReason}).`}{" "}
              {s.chat.source === "detected"
                ? "Chat uses the detected server now."
                : s.chat.ready
                  ? "A configured provider is in use, so detection is not needed."
                  : ""}
            </p>
            {s.detection.found.length > 0 && (
              <ul className="mt-1 space-y-1" aria-label="Detected local servers">
                {s.detection.found.map((f) => (
                  <li key={f.port} className="flex flex-wrap items-center gap-2">
                    <span>
                      {f.name} at <code>{f.baseUrl}</code> · {f.models.length} model{f.models.length > 1 ? "s" : ""}{" "}
                      (first: {f.model})
                    </span>
                    {s.detection.chosen?.port === f.port ? (
                      <span className="text-xs font-medium text-emerald-700 dark:text-emerald-400">
                        in use when nothing is configured
                      </span>
                    ) : (
                      <button type="button" className={BTN} onClick={() => prefer.mutate({ port: f.port })}>
                        Switch to this
                      </button>
                    )}
                    <button type="button" className={BTN} onClick={() => keep.mutate({ port: f.port })}>
                      Keep as my provider
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div className="mt-2 flex gap-2">
              {s.detection.enabled && (
                <button type="button" className={BTN} onClick={() => recheck.mutate()} disabled={recheck.isPending}>
                  {recheck.isPending ? "Checking…" : "Re-check now"}
                </button>
              )}
              {s.detection.disabledReason !== "MEMO_DETECT_LOCAL=0" && (
                <button
                  type="button"
                  className={BTN}
                  onClick={() => setDetection.mutate({ enabled: !s.detection.enabled })}
                  disabled={setDetection.isPending}
                >
                  {s.detection.enabled ? "Turn detection off" : "Turn detection on"}
                </button>
              )}
            </div>
          </div>

          <div className="text-sm">
            <h3 className="font-medium">Engines</h3>
            <ul className="space-y-0.5" data-testid="engines">
              <li>Embedding: {s.engines.embedder ?? "not started yet"}</li>
              <li>Local chat: {s.engines.chat ?? "not running (starts with the first local chat)"}</li>
              <li>
                GPU builds of llama.cpp installed:{" "}
                {s.engines.gpuBuildsInstalled.length ? s.engines.gpuBuildsInstalled.join(", ") : "none (CPU only)"}
                {"; "}
                used automatically when the machine has that GPU
                {s.engines.gpuEnv ? ` (MEMO_LLAMA_GPU=${s.engines.gpuEnv})` : ""}.
              </li>
            </ul>
          </div>

          <div className="text-sm">
            {s.checklistDismissed ? (
              <button type="button" className={BTN} onClick={() => showChecklist.mutate({ dismissed: false })}>
                Show the first-run checklist again
              </button>
            ) : (
              <FirstRunChecklist always />
            )}
          </div>
        </>
      )}
    </section>
  );
}
