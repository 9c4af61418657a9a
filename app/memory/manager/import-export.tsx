"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useEffect, useRef, useState, type FormEvent } from "react";
import { LearnFacts } from "../../_ui/learn-facts";
import { useTRPC } from "../../_trpc/client";
import { SPACE_RE } from "@/server/core/space-name";
import { IMPORT_FORMAT_IDS, IMPORT_FORMATS, type ImportFormatId } from "@/server/services/import/formats";
import { BTN_MD as BTN, BTN_PRIMARY_MD as BTN_PRIMARY, INPUT } from "../../_ui/styles";

/** POST a file to an import route; resolves with the error message, or null when the job was queued. */
async function upload(url: string, file: File): Promise<string | null> {
  const res = await fetch(url, { method: "POST", body: file, headers: { "content-type": "application/json" } });
  if (res.ok) return null;
  try {
    const body = (await res.json()) as { error?: { message?: string } };
    return body.error?.message ?? `import failed (HTTP ${res.status})`;
  } catch {
    return `import failed (HTTP ${res.status})`;
  }
}

/** One import form; the format picked sets the route, the file's label and the default space (server/import/formats.ts). */
function ImportForm({ spaces, onQueued }: { spaces: string[]; onQueued: () => void }) {
  const [kind, setKind] = useState<ImportFormatId>("memo");
  const format = IMPORT_FORMATS[kind];
  const [file, setFile] = useState<File | null>(null);
  const [space, setSpace] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const id = "import-file";
  const spaceValid = space === "" || SPACE_RE.test(space);
  const defaultSpace = format.defaultSpace ?? "as in the file";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !spaceValid) return;
    setSending(true);
    setError(null);
    const params = new URLSearchParams({ filename: file.name });
    if (space) params.set("space", space);
    const err = await upload(`${format.route}?${params}`, file);
    setSending(false);
    if (err) return setError(err);
    setFile(null);
    if (fileRef.current) fileRef.current.value = "";
    onQueued();
  };

  return (
    <form onSubmit={submit} aria-label="Import" className="space-y-2 md:col-span-2">
      <h3 className="text-sm font-semibold">Import</h3>
      <label className="flex flex-wrap items-center gap-2 text-sm">
        Format
        <select
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as ImportFormatId);
            setError(null);
          }}
          className={`max-w-[10rem] ${INPUT}`}
        >
          {IMPORT_FORMAT_IDS.map((k) => (
            <option key={k} value={k}>
              {IMPORT_FORMATS[k].name}
            </option>
          ))}
        </select>
      </label>
      <p className="text-xs text-zinc-500" data-testid="import-hint">
        {format.hint}
      </p>
      <label className="block text-sm">
        <span className="sr-only">{format.fileLabel}</span>
        <input
          ref={fileRef}
          id={`${id}-file`}
          type="file"
          accept="application/json,.json"
          aria-label={format.fileLabel}
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          className="block w-full max-w-full text-sm file:mr-2 file:rounded file:border file:border-zinc-300 file:bg-white file:px-2 file:py-1 dark:file:border-zinc-700 dark:file:bg-zinc-900"
        />
      </label>
      <label className="flex flex-wrap items-center gap-2 text-sm">
        {`Into space (empty: ${defaultSpace})`}
        <input
          list={`${id}-spaces`}
          value={space}
          onChange={(e) => setSpace(e.target.value.trim())}
          placeholder={defaultSpace}
          aria-invalid={!spaceValid}
          className={`w-40 ${INPUT}`}
        />
        <datalist id={`${id}-spaces`}>
          {spaces.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      </label>
      {!spaceValid && (
        <p className="text-xs text-red-700 dark:text-red-300">A space name is 1–64 letters, digits, “-” or “_”.</p>
      )}
      <button type="submit" className={BTN_PRIMARY} disabled={!file || !spaceValid || sending}>
        {sending ? "Uploading…" : "Import"}
      </button>
      {error && (
        <p
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-2 py-1 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {error}
        </p>
      )}
    </form>
  );
}

/** Export and import (every format of server/import/formats.ts), and the progress of the imports of this server. */
export function ImportExport() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const [exportSpace, setExportSpace] = useState("");
  const jobs = useQuery({
    ...trpc.manager.imports.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((j) => j.status === "queued" || j.status === "running") ? 500 : false),
  });
  // When an import finishes, the table, the space lists and analytics are out of date.
  const finished = useRef<Set<string> | null>(null);
  useEffect(() => {
    const done = (jobs.data ?? []).filter((j) => j.status !== "queued" && j.status !== "running").map((j) => j.id);
    if (finished.current === null) {
      finished.current = new Set(done);
      return;
    }
    const fresh = done.filter((id) => !finished.current!.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) finished.current.add(id);
    void qc.invalidateQueries({ queryKey: trpc.manager.list.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.memory.spaces.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.analytics.overview.queryKey() });
  }, [jobs.data, qc, trpc]);
  const queued = () => void qc.invalidateQueries({ queryKey: trpc.manager.imports.queryKey() });
  const cancel = useMutation(trpc.manager.cancelImport.mutationOptions({ onSettled: queued }));
  const spaceList = spaces.data ?? [];

  return (
    <section aria-labelledby="ie-heading" className="space-y-3 rounded border border-zinc-200 p-3 dark:border-zinc-800">
      <h2 id="ie-heading" className="text-base font-semibold">
        Export and import
      </h2>
      <div className="grid gap-4 md:grid-cols-3">
        <div className="space-y-2">
          <h3 className="text-sm font-semibold">Export</h3>
          <p className="text-xs text-zinc-500">
            Live memories as versioned JSON: text, times, importance, pinned, kind, source. No vectors.
          </p>
          <label className="flex items-center gap-2 text-sm">
            Space
            <select
              value={exportSpace}
              onChange={(e) => setExportSpace(e.target.value)}
              className={`max-w-[10rem] ${INPUT}`}
            >
              <option value="">all spaces</option>
              {spaceList.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <a
            href={`/api/v1/export${exportSpace ? `?space=${encodeURIComponent(exportSpace)}` : ""}`}
            download
            className={`inline-block ${BTN_PRIMARY}`}
          >
            Download JSON
          </a>
        </div>
        <ImportForm spaces={spaceList} onQueued={queued} />
      </div>

      {(jobs.data?.length ?? 0) > 0 && (
        <div>
          <h3 className="mb-1 text-sm font-semibold">Imports</h3>
          <ul className="space-y-2" aria-live="polite">
            {jobs.data!.map((j) => {
              // A streamed file's progress is how far into it the stored memories reach.
              const pct =
                j.status === "done"
                  ? 100
                  : j.bytesTotal > 0
                    ? Math.floor((j.bytesDone / j.bytesTotal) * 100)
                    : j.total > 0
                      ? Math.round((j.done / j.total) * 100)
                      : 0;
              const active = j.status === "queued" || j.status === "running";
              return (
                <li
                  key={j.id}
                  data-testid="import-job"
                  data-status={j.status}
                  className="rounded border border-zinc-200 p-2 text-xs dark:border-zinc-800"
                >
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <span className="font-medium break-all">
                      {IMPORT_FORMATS[j.kind].name} · {j.label}
                      {j.space ? ` → ${j.space}` : ""}
                    </span>
                    <span
                      className={
                        j.status === "failed"
                          ? "text-red-700 dark:text-red-300"
                          : j.status === "done"
                            ? "text-emerald-700 dark:text-emerald-400"
                            : "text-zinc-600 dark:text-zinc-400"
                      }
                    >
                      {j.status}
                    </span>
                  </div>
                  <div
                    className="mt-1 h-2 rounded bg-zinc-200 dark:bg-zinc-800"
                    role="progressbar"
                    aria-label={`Import ${j.label}`}
                    aria-valuemin={0}
                    aria-valuemax={100}
                    aria-valuenow={pct}
                  >
                    <div
                      className={`h-2 rounded ${j.status === "failed" ? "bg-red-500" : "bg-emerald-600"}`}
                      style={{ width: `${pct}%` }}
                    />
                  </div>
                  <div className="mt-1 text-zinc-600 dark:text-zinc-400" data-testid="import-summary">
                    {j.detail} · {j.imported} imported, {j.duplicates} already stored
                    {j.status === "running" ? ` · ${pct}% of ${(j.bytesTotal / 1024 / 1024).toFixed(1)} MB read` : ""}
                    {j.status === "cancelled"
                      ? j.cancel === "forget"
                        ? " · cancelled, what it stored forgotten"
                        : " · cancelled, what it stored kept"
                      : ""}
                  </div>
                  {j.conversations && j.conversations.total > 0 && (
                    <div className="mt-1 break-words" data-testid="import-conversations">
                      {j.conversations.total} conversation{j.conversations.total === 1 ? "" : "s"} in your chats
                      {j.conversations.created < j.conversations.total
                        ? ` (${j.conversations.total - j.conversations.created} already there)`
                        : ""}
                      :{" "}
                      {j.conversations.first.map((c, i) => (
                        <Fragment key={c.id}>
                          {i > 0 && ", "}
                          <Link href={`/c/${c.id}`} className="text-blue-700 underline dark:text-blue-400">
                            {c.title}
                          </Link>
                        </Fragment>
                      ))}
                      {j.conversations.total > j.conversations.first.length &&
                        ` and ${j.conversations.total - j.conversations.first.length} more (in the chat list, by date)`}
                    </div>
                  )}
                  {active && (
                    <div className="mt-1 flex flex-wrap gap-2">
                      <button
                        type="button"
                        className={BTN}
                        disabled={cancel.isPending}
                        onClick={() => cancel.mutate({ id: j.id, forget: false })}
                      >
                        Cancel, keep what is imported
                      </button>
                      <button
                        type="button"
                        className={BTN}
                        disabled={cancel.isPending}
                        onClick={() => cancel.mutate({ id: j.id, forget: true })}
                      >
                        Cancel and forget it
                      </button>
                    </div>
                  )}
                  {j.problems.length > 0 && (
                    <details className="mt-1 text-amber-800 dark:text-amber-300" data-testid="import-problems">
                      <summary>Left out of this file ({j.problems.length})</summary>
                      <ul className="ml-4 list-disc">
                        {j.problems.map((p) => (
                          <li key={p} className="break-words">
                            {p}
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                  {j.error && <div className="mt-1 text-red-700 dark:text-red-300">{j.error}</div>}
                  {IMPORT_FORMATS[j.kind].conversationPrefix !== null && j.status === "done" && j.imported > 0 && (
                    <LearnFacts kind="import" target={j.id} label={`the import ${j.label}`} />
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </section>
  );
}
