"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { eta, mb, pct } from "./format";
import { useSetupStatus } from "./use-setup-status";
import { namesList, otherAppImports } from "@/server/services/import/formats";

/** The importers of other apps' exports (server/services/import/formats.ts), named from the registry. */
const IMPORTS = otherAppImports();
const IMPORT_FILES = namesList([...new Set(IMPORTS.map((f) => f.exportFrom.file))], "or");

function Item({ done, title, children }: { done: boolean; title: string; children: React.ReactNode }) {
  return (
    <li className="flex gap-2" data-done={done}>
      <span
        aria-hidden
        className={`mt-0.5 inline-block h-4 w-4 shrink-0 rounded-full border text-center text-[10px] leading-[14px] ${done ? "border-emerald-700 bg-emerald-700 text-white" : "border-zinc-400"}`}
      >
        {done ? "✓" : ""}
      </span>
      <div className="min-w-0">
        <p className="font-medium">
          {title}
          <span className="sr-only">{done ? " (done)" : " (to do)"}</span>
        </p>
        <div className="text-zinc-600 dark:text-zinc-400">{children}</div>
      </div>
    </li>
  );
}

/**
 * First-run checklist: the embedding model and its download, the chat provider (with a Test button),
 * importing another app's chat history (every importer in the registry), and where the data lives and how to back it up. Shown on the chat page until
 * dismissed; Settings → Models shows it again (`always`).
 */
export function FirstRunChecklist({ always = false }: { always?: boolean }) {
  const pathname = usePathname() ?? "/";
  const here = always || pathname === "/";
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useSetupStatus(here);
  const [test, setTest] = useState<{ ok: boolean; text: string } | null>(null);
  // On a phone the steps fold under the heading, so the composer stays on the first screen.
  const [open, setOpen] = useState(false);
  const setData = (d: unknown) => qc.setQueryData(trpc.setup.status.queryKey(), d as never);
  const dismiss = useMutation(trpc.setup.setChecklistDismissed.mutationOptions({ onSuccess: setData }));
  const testMut = useMutation(
    trpc.providers.test.mutationOptions({
      onSuccess: (r) =>
        setTest(
          r.ok
            ? { ok: true, text: `OK: ${r.model} answered “${r.reply}” in ${r.ms} ms` }
            : { ok: false, text: r.error ?? "failed" },
        ),
      onError: (e) => setTest({ ok: false, text: e.message }),
    }),
  );
  if (!here || !q.data || (q.data.checklistDismissed && !always)) return null;
  const s = q.data;
  const d = s.download;
  const downloading = d.phase === "downloading" || d.phase === "verifying" || d.phase === "switching";
  const chatTitle = s.chat.ready
    ? s.chat.source === "detected"
      ? `Chat provider: ${s.detection.chosen?.name ?? "a local server"} (detected)`
      : `Chat provider: ${s.chat.label}${s.chat.model ? ` · ${s.chat.model}` : ""} (configured)`
    : "Chat provider: none yet";

  return (
    <section
      aria-labelledby="frc-heading"
      data-testid="first-run-checklist"
      className="first-run-checklist mb-6 rounded border border-zinc-200 bg-white px-3 py-2 text-sm sm:p-4 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id="frc-heading" className="text-base font-semibold">
          Getting started
        </h2>
        <button
          type="button"
          className="mr-auto rounded px-1 text-xs text-blue-700 underline sm:hidden dark:text-blue-400"
          aria-expanded={open}
          aria-controls="frc-steps"
          onClick={() => setOpen(!open)}
        >
          {open ? "Hide steps" : "Show steps"}
        </button>
        {!s.checklistDismissed && (
          <button
            type="button"
            className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
            onClick={() => dismiss.mutate({ dismissed: true })}
            disabled={dismiss.isPending}
          >
            Dismiss
          </button>
        )}
      </div>
      <ul id="frc-steps" className={`mt-3 space-y-3 ${open ? "" : "hidden sm:block"}`}>
        <Item
          done={!s.embedder.fallback && s.embedder.status === "ready"}
          title={`Embedding model: ${s.embedder.fallback ? "the bundled offline model" : (s.embedder.model ?? "starting…")}`}
        >
          {downloading ? (
            <>
              Downloading {d.model}: {pct(d.done, d.total)}% ({mb(d.done)}
              {d.total ? ` of ${mb(d.total)}` : ""}) {eta(d.etaSec)}
              <progress
                className="mt-1 block h-2 w-full"
                max={100}
                value={pct(d.done, d.total)}
                aria-label="Checklist: model download progress"
              />
            </>
          ) : s.embedder.fallback ? (
            <>
              {d.message ?? s.embedder.reason}
              {/models:pull/.test(d.message ?? s.embedder.reason ?? "") ? (
                "."
              ) : (
                <>
                  {" "}
                  — run <code>npm run models:pull</code> when online for better recall.
                </>
              )}
            </>
          ) : (
            <>
              {s.embedder.dim ? `${s.embedder.dim}-d, ` : ""}
              {s.embedder.engine ?? ""}
            </>
          )}
        </Item>
        <Item done={s.chat.ready} title={chatTitle}>
          {s.chat.ready ? (
            <>
              {s.chat.source === "detected" && s.detection.chosen
                ? `${s.detection.chosen.baseUrl}, model ${s.detection.chosen.model}. `
                : ""}
              <button
                type="button"
                className="underline"
                onClick={() => testMut.mutate({})}
                disabled={testMut.isPending}
              >
                {testMut.isPending ? "Testing…" : "Test the chat provider"}
              </button>
              {test && (
                <span
                  role="status"
                  className={`ml-2 ${test.ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`}
                >
                  {test.text}
                </span>
              )}
            </>
          ) : (
            // How to connect one is said once, on the "Connect a model" card above the chat (app/_chat/connect-model.tsx).
            <>
              Not connected yet:{" "}
              <Link href="/settings#providers" className="underline">
                Settings → Providers
              </Link>
              .
            </>
          )}
        </Item>
        <Item
          done={s.imports.done}
          title={`Import your ${namesList(
            IMPORTS.map((f) => f.name),
            "or",
          )} history (optional)`}
        >
          {IMPORTS.map((f, i) => (
            <span key={f.id}>
              {i === 0 ? "In" : "; in"} {f.name}: {f.exportFrom.steps}
            </span>
          ))}
          . Unzip the export and import its <code>{IMPORT_FILES}</code> on{" "}
          <Link href="/memory/manager" className="underline">
            Memory → Manager
          </Link>{" "}
          (original dates are kept; its conversations join your chats).
        </Item>
        {s.data ? (
          <Item done={false} title="Your data and its backup">
            Everything is in <code className="break-all">{s.data.dir}</code> (the store:{" "}
            <code className="break-all">{s.data.db}</code>). Back it up while Memo runs with <code>npm run backup</code>{" "}
            (a consistent copy); <code>MEMO_DATA_DIR</code> moves the folder.
          </Item>
        ) : (
          <Item done={false} title="A copy of your memory">
            Your memory is kept on this Memo server, and whoever runs it makes its backups. To keep a copy of your own,
            export it on{" "}
            <Link href="/memory/manager" className="underline">
              Memory → Manager
            </Link>
            .
          </Item>
        )}
      </ul>
    </section>
  );
}
