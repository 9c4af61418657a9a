import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { BTN, BTN_DANGER, BTN_PRIMARY, INPUT } from "../../_ui/styles";
import { localDate, localDateTime } from "../../_ui/local-time";
import { WhoseBadge } from "../../_ui/whose-badge";
import { IMPORT_FORMATS, importedFrom } from "@/server/services/import/formats";

/** "ChatGPT import", "Claude import", or "conversation" for Memo's own chats. */
function importSourceLabel(conversationId: string): string {
  const from = importedFrom(conversationId);
  return from ? `${IMPORT_FORMATS[from].name} import` : "conversation";
}

export type ManagedItem = inferRouterOutputs<AppRouter>["manager"]["list"]["items"][number];

/** One memory in the Manager's table: its text (or the edit form), badges, sources and per-row actions. */
export function MemoryRow({
  m,
  selected,
  editing,
  busy,
  saving,
  onToggle,
  onSave,
  onDraft,
  onCancel,
  onEdit,
  onPin,
  onImportance,
  onRestore,
  onDelete,
}: {
  m: ManagedItem;
  selected: boolean;
  /** The draft while this row is being edited. */
  editing: { draft: string } | null;
  busy: boolean;
  saving: boolean;
  onToggle: () => void;
  onSave: (content: string) => void;
  onDraft: (draft: string) => void;
  onCancel: () => void;
  onEdit: () => void;
  onPin: (pinned: boolean) => void;
  onImportance: (importance: number) => void;
  onRestore: () => void;
  onDelete: () => void;
}) {
  const isEditing = editing !== null;
  const short = m.content.length > 60 ? `${m.content.slice(0, 60)}…` : m.content;
  return (
    <tr
      data-testid="memory-row"
      data-id={m.id}
      data-deleted={m.softDeleted ? "true" : "false"}
      className={`border-t border-zinc-200 align-top dark:border-zinc-800 ${m.softDeleted ? "bg-zinc-100/60 dark:bg-zinc-900/60" : ""}`}
    >
      <td className="p-2">
        <input type="checkbox" aria-label={`Select: ${short}`} checked={selected} onChange={onToggle} />
      </td>
      <td className="min-w-0 p-2">
        {isEditing ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              onSave(editing.draft);
            }}
            className="space-y-1"
          >
            <label className="sr-only" htmlFor={`edit-${m.id}`}>
              Content
            </label>
            <textarea
              id={`edit-${m.id}`}
              autoFocus
              value={editing.draft}
              onChange={(e) => onDraft(e.target.value)}
              onKeyDown={(e) => e.key === "Escape" && onCancel()}
              rows={Math.min(10, Math.max(3, Math.ceil(editing.draft.length / 80)))}
              className={`w-full ${INPUT}`}
            />
            <div className="flex gap-2">
              <button type="submit" className={BTN_PRIMARY} disabled={saving || !editing.draft.trim()}>
                {saving ? "Saving…" : "Save"}
              </button>
              <button type="button" className={BTN} onClick={onCancel}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <div
            data-testid="memory-content"
            className={`line-clamp-4 whitespace-pre-wrap break-words ${m.softDeleted ? "text-zinc-500 line-through decoration-zinc-400" : ""}`}
          >
            {m.content}
          </div>
        )}
        <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500">
          {m.pinned && (
            <span className="rounded bg-amber-100 px-1.5 font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">
              pinned
            </span>
          )}
          {m.softDeleted && (
            <span
              className="rounded bg-red-100 px-1.5 font-medium text-red-800 dark:bg-red-950 dark:text-red-200"
              data-testid="deleted-badge"
            >
              deleted · purged {localDate(m.purgeAt)}
            </span>
          )}
          <span className="md:hidden">
            {m.whose?.space ?? m.spaceId} · {m.kind} · {localDateTime(m.timestamp)}
            <WhoseBadge whose={m.whose} />
          </span>
          {m.documentName && (
            <span title={m.documentId ?? ""} data-testid="memory-sources">
              from {(m.documentNames.length ? m.documentNames : [m.documentName]).join(", ")}
              {m.chunkIndex !== null && m.documentNames.length <= 1 ? ` #${m.chunkIndex + 1}` : ""}
            </span>
          )}
          {m.updatedAt && <span data-testid="edited-date">edited {localDateTime(m.updatedAt)}</span>}
          {!m.documentName && m.conversationId && <span>{importSourceLabel(m.conversationId)}</span>}
        </div>
        {!isEditing && (
          <div className="mt-2 flex flex-wrap items-center gap-1.5">
            <button
              type="button"
              className={BTN}
              aria-pressed={m.pinned}
              disabled={busy}
              onClick={() => onPin(!m.pinned)}
            >
              {m.pinned ? "Unpin" : "Pin"}
            </button>
            <button type="button" className={BTN} disabled={busy} onClick={onEdit}>
              Edit
            </button>
            <label className="flex items-center gap-1 text-xs">
              Importance
              <select
                value={m.importance}
                disabled={busy || m.pinned}
                title={m.pinned ? "Pinned memories keep importance 5" : undefined}
                onChange={(e) => onImportance(Number(e.target.value))}
                className={`${INPUT} py-0.5 text-xs`}
              >
                {[0, 1, 2, 3, 4, 5].map((n) => (
                  <option key={n}>{n}</option>
                ))}
              </select>
            </label>
            {m.softDeleted ? (
              <button type="button" className={BTN} disabled={busy} onClick={onRestore}>
                Restore
              </button>
            ) : (
              <button type="button" className={BTN_DANGER} disabled={busy} onClick={onDelete}>
                Delete
              </button>
            )}
          </div>
        )}
      </td>
      <td className="hidden truncate p-2 md:table-cell" title={m.whose?.space ?? m.spaceId}>
        {m.whose?.space ?? m.spaceId}
        <WhoseBadge whose={m.whose} />
      </td>
      <td className="hidden whitespace-nowrap p-2 md:table-cell">{m.kind}</td>
      <td className="hidden whitespace-nowrap p-2 tabular-nums md:table-cell">
        <time dateTime={m.timestamp} title={`stored ${localDateTime(m.createdAt)}`} suppressHydrationWarning>
          {localDateTime(m.timestamp)}
        </time>
      </td>
      <td
        className="hidden p-2 text-right tabular-nums lg:table-cell"
        title={m.lastRetrievedAt ? `last ${localDateTime(m.lastRetrievedAt)}` : "never"}
      >
        {m.retrievalCount}×
      </td>
    </tr>
  );
}
