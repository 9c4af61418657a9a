"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { refuseBeforeUpload } from "@/server/ingest/upload-check";
import { LearnFacts } from "../_ui/learn-facts";
import { useTRPC } from "../_trpc/client";
import { SPACE_RE } from "@/server/core/space-name";
import { BTN, INPUT } from "../_ui/styles";
import { localDateTime } from "../_ui/local-time";
import { overallPercent, stepPercent } from "./progress-percent";

const BTN_PRIMARY =
  "cursor-pointer rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900";

type Status = "queued" | "processing" | "done" | "failed" | "cancelled";

const STATUS_STYLE: Record<Status, string> = {
  queued: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  processing: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100",
  done: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  failed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
  cancelled: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
};

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

interface DocumentView {
  id: string;
  name: string;
  size: number;
  status: Status;
  error: string | null;
  chunksTotal: number;
  chunksDone: number;
  memories: number;
  forgotten: number;
  forgottenAt: string | null;
  createdAt: string;
  canReingest: boolean;
  queuePosition: number | null;
  stage: {
    name: "reading" | "counting" | "embedding";
    done: number;
    total: number;
    startedAt: string;
    doneAtStart: number;
  } | null;
}

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

/**
 * "0 of 3 passages live — forgotten on …": a done document some of whose passages were forgotten (/forget,
 * the Manager) or purged since. Null when all of it is live.
 */
function livenessText(doc: DocumentView): string | null {
  if (doc.status !== "done") return null;
  const total = Math.max(doc.chunksTotal, doc.memories + doc.forgotten);
  if (doc.memories >= total) return null;
  const head = `${doc.memories} of ${total} passages live`;
  if (doc.forgottenAt) return `${head} — forgotten on ${localDateTime(doc.forgottenAt)}`;
  return `${head} — the rest were forgotten and purged`;
}

/** "about 40 s left" from the stage's rate so far; null until there is one to go by. */
function timeLeft(stage: NonNullable<DocumentView["stage"]>, now: number): string | null {
  const elapsed = (now - Date.parse(stage.startedAt)) / 1000;
  const moved = stage.done - stage.doneAtStart;
  if (moved <= 0 || elapsed < 0.5 || stage.total <= 0) return null;
  const s = Math.ceil(((stage.total - stage.done) / moved) * elapsed);
  if (s <= 0) return null;
  return s < 60 ? `about ${s} s left` : `about ${Math.round(s / 60)} min left`;
}

/**
 * A document's bar and label: queued (and how many ahead), then each stage with its percentage and time
 * left — counting the text's tokens (step 1 of 2), then embedding its chunks (step 2 of 2) — then done.
 */
function Progress({ doc }: { doc: DocumentView }) {
  const stage = doc.status === "processing" ? doc.stage : null;
  const reading = doc.status === "processing" && (!stage || stage.name === "reading" || stage.total === 0);
  const pct = stepPercent(doc);
  const overall = overallPercent(doc);
  const left = stage ? timeLeft(stage, Date.now()) : null;
  const label =
    doc.status === "done"
      ? `${doc.chunksTotal} chunk${doc.chunksTotal === 1 ? "" : "s"}`
      : doc.status === "queued"
        ? doc.queuePosition
          ? `queued · ${doc.queuePosition} ahead`
          : "queued"
        : reading
          ? "reading the file…"
          : stage?.name === "counting"
            ? `counting tokens ${pct}% · ${left ?? "estimating time left…"} (step 1 of 2)`
            : `${doc.chunksDone} / ${doc.chunksTotal} chunks · ${pct}% · ${left ?? "estimating time left…"} (step 2 of 2)`;
  return (
    <div className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
      <div
        role="progressbar"
        aria-label={`Progress of ${doc.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={reading ? undefined : overall}
        aria-valuetext={label}
        className="h-2 min-w-32 flex-1 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
      >
        <div
          className={`h-2 rounded transition-[width] duration-300 ${doc.status === "done" ? "bg-emerald-600" : "bg-sky-600"} ${reading ? "w-1/4 animate-pulse" : ""}`}
          style={reading ? undefined : { width: `${overall}%` }}
        />
      </div>
      <span className="shrink-0 text-right tabular-nums text-zinc-600 dark:text-zinc-400" data-testid="progress-text">
        {label}
      </span>
    </div>
  );
}

function DocumentItem({ doc, onChanged }: { doc: DocumentView; onChanged: () => void }) {
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (!confirming) return;
    const t = setTimeout(() => setConfirming(false), 4000);
    return () => clearTimeout(t);
  }, [confirming]);
  const del = useMutation(trpc.documents.delete.mutationOptions({ onSuccess: onChanged }));
  const reingest = useMutation(trpc.documents.reingest.mutationOptions({ onSuccess: onChanged }));
  const restore = useMutation(trpc.documents.restore.mutationOptions({ onSuccess: onChanged }));
  const cancel = useMutation(trpc.documents.cancel.mutationOptions({ onSuccess: onChanged }));
  const active = doc.status === "queued" || doc.status === "processing";
  const actionError = del.error ?? reingest.error ?? cancel.error ?? restore.error;
  const liveness = livenessText(doc);
  // A done document nothing of which is live reads "forgotten", not "done".
  const shownStatus = doc.status === "done" && doc.memories === 0 && liveness ? "forgotten" : doc.status;
  return (
    <li data-testid="document" data-status={doc.status} aria-label={doc.name} className="py-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span data-testid="document-name" className="min-w-0 break-all font-medium">
          {doc.name}
        </span>
        <span
          data-testid="document-status"
          className={`rounded px-2 py-0.5 text-xs font-medium ${shownStatus === "forgotten" ? STATUS_STYLE.cancelled : STATUS_STYLE[doc.status]}`}
        >
          {shownStatus}
        </span>
        <span className="text-xs text-zinc-500">
          {formatBytes(doc.size)} ·{" "}
          {doc.status === "done"
            ? `${doc.chunksTotal} chunk${doc.chunksTotal === 1 ? "" : "s"} · `
            : doc.chunksTotal
              ? `${doc.chunksDone}/${doc.chunksTotal} chunks · `
              : ""}
          added{" "}
          <time dateTime={doc.createdAt} title={doc.createdAt} suppressHydrationWarning>
            {localDateTime(doc.createdAt)}
          </time>
        </span>
        <div className="ml-auto flex gap-2">
          {doc.forgotten > 0 && doc.status === "done" && (
            <button
              type="button"
              className={BTN}
              disabled={restore.isPending}
              onClick={() => restore.mutate({ id: doc.id })}
              aria-label={`Restore ${doc.name}`}
            >
              Restore
            </button>
          )}
          {active && (
            <button
              type="button"
              className={BTN}
              disabled={cancel.isPending}
              onClick={() => cancel.mutate({ id: doc.id })}
              aria-label={`Cancel ${doc.name}`}
            >
              Cancel
            </button>
          )}
          {doc.canReingest && (
            <button
              type="button"
              className={BTN}
              disabled={reingest.isPending}
              onClick={() => reingest.mutate({ id: doc.id })}
              aria-label={`Re-ingest ${doc.name}`}
            >
              Re-ingest
            </button>
          )}
          {doc.status === "failed" ? (
            // Nothing of a failed file was kept: its row goes at once, no confirmation.
            <button
              type="button"
              className={BTN}
              disabled={del.isPending}
              aria-label={`Dismiss ${doc.name}`}
              onClick={() => del.mutate({ id: doc.id })}
            >
              Dismiss
            </button>
          ) : (
            <button
              type="button"
              className={`${BTN} ${confirming ? "border-red-400 text-red-700 dark:text-red-300" : ""}`}
              disabled={del.isPending}
              aria-label={confirming ? `Confirm delete ${doc.name}` : `Delete ${doc.name}`}
              onClick={() => (confirming ? del.mutate({ id: doc.id }) : setConfirming(true))}
            >
              {confirming ? "Confirm delete" : "Delete"}
            </button>
          )}
        </div>
      </div>
      {/* A full green bar would say "all there" of a document that is partly or wholly forgotten. */}
      {doc.status !== "failed" && doc.status !== "cancelled" && !liveness && <Progress doc={doc} />}
      {liveness && (
        <p data-testid="document-liveness" className="mt-1 text-sm text-amber-800 dark:text-amber-300">
          {liveness}
        </p>
      )}
      {doc.error && (
        <p data-testid="document-error" className="mt-1 text-sm text-red-700 dark:text-red-300">
          {doc.error}
        </p>
      )}
      {doc.status === "cancelled" && <p className="mt-1 text-xs text-zinc-500">Cancelled; nothing of it was kept.</p>}
      {doc.status === "done" && <LearnFacts kind="document" target={doc.id} label={doc.name} />}
      {actionError && (
        <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300">
          {actionError.message}
        </p>
      )}
    </li>
  );
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
  const [uploading, setUploading] = useState<{ key: string; name: string; size: number }[]>([]);
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
    // A file that is plainly not Markdown, text or PDF is refused here, before its bytes are sent.
    const refused = picked.map((f) => [f, refuseBeforeUpload(f)] as const).filter(([, why]) => why !== null);
    setRequestErrors(refused.map(([f, why]) => `${f.name}: ${why}`));
    const files = picked.filter((f) => !refused.some(([r]) => r === f));
    if (files.length === 0) {
      if (fileRef.current) fileRef.current.value = "";
      return;
    }
    const items = files.map((f, i) => ({ key: `${Date.now()}-${i}-${f.name}`, name: f.name, size: f.size, file: f }));
    setUploading((u) => [...u, ...items.map(({ key, name, size }) => ({ key, name, size }))]);
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
        <p className="text-xs text-zinc-500">
          Into space <strong>{space || "—"}</strong>
          {limits.data && ` · up to ${formatBytes(limits.data.maxUploadBytes)} per file`} · PDFs need a text layer
          (scans need OCR first)
        </p>
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
              <span className="text-xs text-zinc-500">{formatBytes(u.size)} · uploading…</span>
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
