"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { needsCharCount, looksLikePdf, refuseBeforeUpload, refuseForSize } from "@/server/ingest/upload-check";
import { useTRPC } from "../_trpc/client";
import { SPACE_RE } from "@/server/core/space-name";
import { INPUT } from "../_ui/styles";
import { DocumentItem, type DocumentView, formatBytes } from "./document-item";
import { estimateFor, speedLine } from "./ingest-estimate";

const BTN_PRIMARY =
  "cursor-pointer rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900";

/** POST one file; resolves with an error message for the whole request, or null (the row says the rest). */
// Not a valid space name (spaces hold no blanks), so it cannot clash with one.
const NEW_SPACE = " new";

interface UploadAnswer {
  duplicateOf?: string;
  restored?: number;
  requeued?: boolean;
}

async function uploadOne(
  file: File,
  space: string,
): Promise<{ error: string } | { error: null; answer: UploadAnswer }> {
  const form = new FormData();
  form.append("space", space);
  form.append("file", file, file.name);
  try {
    const res = await fetch("/api/v1/documents", { method: "POST", body: form });
    const body = (await res.json().catch(() => null)) as {
      documents?: UploadAnswer[];
      error?: { message?: string };
    } | null;
    if (res.ok) return { error: null, answer: body?.documents?.[0] ?? {} };
    return { error: body?.error?.message ?? `upload failed (HTTP ${res.status})` };
  } catch (e) {
    return { error: `upload failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** What uploading a file that is already there did: nothing, brought its forgotten passages back, or queued it again. */
function duplicateNotice(name: string, space: string, a: UploadAnswer): string {
  const n = a.restored ?? 0;
  const restored = `restored its ${n} passage${n === 1 ? "" : "s"}`;
  if (a.requeued)
    return `${name} had been forgotten${n ? `; uploading it again ${restored}, and` : ", and some of it purged; uploading it again"} writes the rest anew from the kept file in '${space}'.`;
  if (n) return `${name} had been forgotten; uploading it again ${restored} in '${space}'.`;
  return `${name} is already stored in '${space}' (identical content): nothing new was added.`;
}

export function Ingest() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const inputId = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const [space, setSpace] = useState("personal");
  const [newSpace, setNewSpace] = useState(false);
  const [notices, setNotices] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const [uploading, setUploading] = useState<{ key: string; name: string; size: number; pdf: boolean }[]>([]);
  const [requestErrors, setRequestErrors] = useState<string[]>([]);
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const limits = useQuery(trpc.documents.limits.queryOptions());
  const spaceValid = SPACE_RE.test(space);
  const spaceKnown = spaceValid && (spaces.data ?? []).includes(space);
  const list = useQuery({
    ...trpc.documents.list.queryOptions({ space }),
    enabled: spaceKnown,
    // Live progress: poll while anything is queued or running (also after a reload: the rows say so).
    refetchInterval: (q) =>
      (q.state.data as DocumentView[] | undefined)?.some((d) => d.status === "queued" || d.status === "processing")
        ? 500
        : false,
  });
  const docs = (spaceKnown ? (list.data ?? []) : []) as DocumentView[];
  // A document that finishes changes the measured speed the next upload is told: read it again then.
  const doneCount = docs.filter((d) => d.status === "done").length;
  useEffect(() => {
    if (doneCount > 0) void queryClient.invalidateQueries({ queryKey: trpc.documents.limits.queryKey() });
  }, [doneCount, queryClient, trpc]);

  const refresh = async () => {
    // A list read that began before this file was stored does not hold its row, and an invalidation
    // joins a first read still in flight instead of starting another: cancel it, then read again.
    await queryClient.cancelQueries({ queryKey: trpc.documents.list.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.documents.list.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.memory.spaces.queryKey() });
  };

  const upload = async (picked: File[]) => {
    if (!spaceValid || picked.length === 0) return;
    setRequestErrors([]);
    setNotices([]);
    // A file that is plainly not Markdown, text or PDF, or over the limit for its kind, is refused here,
    // before its bytes are sent (a text file that could be over the character limit is counted first).
    const lim = limits.data;
    const why = async (f: File) =>
      refuseBeforeUpload(f) ??
      (lim ? refuseForSize(f, lim, needsCharCount(f, lim.maxChars) ? (await f.text()).length : undefined) : null);
    const reasons = await Promise.all(picked.map(why));
    const refused = picked.map((f, i) => [f, reasons[i] ?? null] as const).filter(([, r]) => r !== null);
    setRequestErrors(refused.map(([f, why]) => `${f.name}: ${why}`));
    const files = picked.filter((f) => !refused.some(([r]) => r === f));
    if (files.length === 0) {
      if (fileRef.current) fileRef.current.value = "";
      return;
    }
    const items = files.map((f, i) => ({
      key: `${Date.now()}-${i}-${f.name}`,
      name: f.name,
      size: f.size,
      pdf: looksLikePdf(f),
      file: f,
    }));
    setUploading((u) => [...u, ...items.map(({ key, name, size, pdf }) => ({ key, name, size, pdf }))]);
    // One request per file, in order: each row appears as soon as its file is stored, and a huge or bad
    // file never holds the others back.
    for (const it of items) {
      const r = await uploadOne(it.file, space);
      if (r.error) setRequestErrors((e) => [...e, `${it.name}: ${r.error}`]);
      else if ("answer" in r && r.answer.duplicateOf) {
        const note = duplicateNotice(it.name, space, r.answer);
        setNotices((n) => [...n, note]);
      }
      setUploading((u) => u.filter((x) => x.key !== it.key));
      await refresh();
    }
    if (fileRef.current) fileRef.current.value = "";
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void upload(Array.from(e.dataTransfer.files));
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {/* An existing space, or "New space…" and its name: a typo no longer creates a space silently. */}
        <label htmlFor={`${inputId}-space`}>Space</label>
        <select
          id={`${inputId}-space`}
          value={newSpace ? NEW_SPACE : space}
          onChange={(e) => {
            if (e.target.value === NEW_SPACE) {
              setNewSpace(true);
              setSpace("");
            } else {
              setNewSpace(false);
              setSpace(e.target.value);
            }
          }}
          className={`${INPUT} w-56 max-w-full`}
        >
          {Array.from(new Set([...(newSpace || !space ? [] : [space]), ...(spaces.data ?? [])])).map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
          <option value={NEW_SPACE}>New space…</option>
        </select>
        {newSpace && (
          <>
            <label htmlFor={`${inputId}-new-space`} className="sr-only">
              New space name
            </label>
            <input
              id={`${inputId}-new-space`}
              autoFocus
              value={space}
              placeholder="new space name"
              onChange={(e) => setSpace(e.target.value.trim())}
              aria-invalid={!spaceValid}
              className={`${INPUT} w-56 max-w-full`}
            />
            {spaceValid && !spaceKnown && <span className="text-xs text-zinc-500">created with the first upload</span>}
          </>
        )}
        {newSpace && space !== "" && !spaceValid && (
          <span className="text-xs text-red-700 dark:text-red-300">1–64 letters, digits, - or _</span>
        )}
      </div>

      <div
        role="group"
        aria-label="Upload documents"
        data-testid="drop-zone"
        onDragEnter={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragOver={(e) => e.preventDefault()}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        className={`flex flex-col items-center gap-2 rounded-lg border-2 border-dashed p-6 text-center text-sm ${
          dragging ? "border-sky-500 bg-sky-50 dark:bg-sky-950" : "border-zinc-300 dark:border-zinc-700"
        }`}
      >
        <p>Drop Markdown, text or PDF files here, or</p>
        <label className={BTN_PRIMARY}>
          Choose files
          <input
            ref={fileRef}
            type="file"
            multiple
            accept=".md,.markdown,.txt,.text,.pdf,text/markdown,text/plain,application/pdf"
            className="sr-only"
            aria-label="Choose files to ingest"
            disabled={!spaceValid}
            onChange={(e) => void upload(Array.from(e.target.files ?? []))}
          />
        </label>
        <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="ingest-limits">
          Into space <strong>{space || "—"}</strong>
          {limits.data &&
            ` · Markdown and text: up to ${limits.data.maxChars.toLocaleString("en-US")} characters per file · PDF: up to ${formatBytes(limits.data.maxUploadBytes)}, ${limits.data.maxPdfPages.toLocaleString("en-US")} pages, with a text layer (scans need OCR first)`}
        </p>
        {limits.data && (
          <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="ingest-speed">
            {speedLine(limits.data.rates)}
          </p>
        )}
      </div>

      {notices.length > 0 && (
        <div
          role="status"
          className="rounded border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
          data-testid="ingest-notice"
        >
          {notices.map((n) => (
            <p key={n}>{n}</p>
          ))}
        </div>
      )}
      {requestErrors.length > 0 && (
        <div
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {requestErrors.map((e) => (
            <p key={e}>{e}</p>
          ))}
        </div>
      )}
      {list.error && (
        <p
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {list.error.message}
        </p>
      )}

      <section aria-label="Documents" className="rounded border border-zinc-200 px-4 dark:border-zinc-800">
        <h2 className="pt-3 text-sm font-semibold">Documents in {space || "—"}</h2>
        {uploading.length === 0 && docs.length === 0 && (
          <p className="py-3 text-sm text-zinc-500">No documents in this space yet.</p>
        )}
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {uploading.map((u) => (
            <li key={u.key} data-testid="uploading" className="py-3 text-sm">
              <span className="break-all font-medium">{u.name}</span>{" "}
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                {formatBytes(u.size)} · uploading…
                {(() => {
                  const t = estimateFor(u.size, u.pdf, limits.data?.rates);
                  return t ? ` · ingesting it takes ${t} here` : "";
                })()}
              </span>
            </li>
          ))}
          {docs.map((d) => (
            <DocumentItem key={d.id} doc={d} onChanged={refresh} />
          ))}
        </ul>
      </section>
    </div>
  );
}
