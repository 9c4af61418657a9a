"use client";

import { ErrorAlert, Th } from "../../_ui/ui";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useEffect, useMemo, useState } from "react";
import { useTRPC } from "../../_trpc/client";
import { LifetimePanel } from "../lifetime-panel";
import { BulkBar } from "./bulk-bar";
import { EMPTY, FilterForm, type Filters } from "./filter-form";
import { listInput, PageNav, UndoRow, useFiltersFromUrl } from "./manager-parts";
import { MemoryRow } from "./memory-row";
import { useDebounced } from "../../_ui/use-debounced";

export function Manager() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [f, setF] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<{ id: string; draft: string } | null>(null);
  const [bulkImportance, setBulkImportance] = useState("3");
  const [confirmPurge, setConfirmPurge] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [undo, setUndo] = useState<{ ids: string[]; afterId: string | null; text: string } | null>(null);
  const text = useDebounced(f.text, 250);
  useEffect(() => {
    if (!undo) return;
    const t = setTimeout(() => setUndo(null), 15_000);
    return () => clearTimeout(t);
  }, [undo]);
  useFiltersFromUrl(setF);

  const input = useMemo(() => listInput(f, text, page), [f, text, page]);
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const shares = useQuery(trpc.spaces.shares.queryOptions());
  const list = useQuery({ ...trpc.manager.list.queryOptions(input), placeholderData: keepPreviousData });
  const data = list.data;

  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => {
    setF((prev) => ({ ...prev, [key]: value }));
    setPage(1);
    setSelected(new Set());
  };

  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: trpc.manager.list.queryKey() });
    await qc.invalidateQueries({ queryKey: trpc.analytics.overview.queryKey() });
  };
  const onError = (e: { message: string }) => {
    setNotice(null);
    setError(e.message);
  };
  const done = (message: string) => {
    setError(null);
    setNotice(message);
    void refresh();
  };

  const edit = useMutation(
    trpc.manager.edit.mutationOptions({
      onSuccess: (r) => {
        setEditing(null);
        done(r.changed ? "Saved; the memory was re-embedded." : "No change.");
      },
      onError,
    }),
  );
  const pin = useMutation(
    trpc.manager.setPinned.mutationOptions({
      onSuccess: (r, v) => done(`${v.pinned ? "Pinned" : "Unpinned"} ${r.changed}.`),
      onError,
    }),
  );
  const importance = useMutation(
    trpc.manager.setImportance.mutationOptions({
      onSuccess: (r) =>
        done(
          `Importance set on ${r.changed}${r.skippedPinned ? `; ${r.skippedPinned} pinned kept importance 5` : ""}.`,
        ),
      onError,
    }),
  );
  const del = useMutation(
    trpc.manager.delete.mutationOptions({
      onSuccess: (r, v) => {
        setSelected(new Set());
        // The undo sits where the row was (after the row above it), or above the table for several.
        const at = v.ids.length === 1 ? pageIds.indexOf(v.ids[0]!) : -1;
        const item = data?.items.find((m) => m.id === v.ids[0]);
        setUndo({
          ids: r.deleted,
          afterId: at > 0 ? pageIds[at - 1]! : null,
          text:
            v.ids.length === 1 && item
              ? `Deleted “${item.content.length > 50 ? `${item.content.slice(0, 50)}…` : item.content}”.`
              : `Deleted ${r.deleted.length} memories.`,
        });
        done(`Deleted ${r.deleted.length}. Restorable until purged.`);
      },
      onError,
    }),
  );
  const restore = useMutation(
    trpc.manager.restore.mutationOptions({
      onSuccess: (r) => {
        setSelected(new Set());
        setUndo(null);
        done(`Restored ${r.restored.length}.`);
      },
      onError,
    }),
  );
  const purge = useMutation(
    trpc.manager.purge.mutationOptions({
      onSuccess: (r) => {
        setSelected(new Set());
        setConfirmPurge(false);
        done(`Deleted ${r.purged} for good.`);
      },
      onError,
    }),
  );
  const busy =
    edit.isPending || pin.isPending || importance.isPending || del.isPending || restore.isPending || purge.isPending;

  const ids = [...selected];
  const pageIds = data?.items.map((m) => m.id) ?? [];
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // The undo sits after the row above the deleted one (`null`: above the table).
  const undoRowAfter = (afterId: string | null) =>
    undo &&
    undo.afterId === afterId && (
      <UndoRow
        text={undo.text}
        busy={busy}
        onUndo={() => restore.mutate({ ids: undo.ids })}
        onClose={() => setUndo(null)}
      />
    );

  return (
    <div className="space-y-4">
      <LifetimePanel space={f.space || undefined} compact />
      <FilterForm
        f={f}
        set={set}
        spaces={spaces.data ?? []}
        shared={shares.data?.withMe ?? []}
        onReset={() => (setF(EMPTY), setPage(1), setSelected(new Set()))}
        onSort={(sort, order) => setF((prev) => ({ ...prev, sort, order }))}
      />

      <div aria-live="polite" className="min-h-[1.25rem] text-sm">
        {notice && (
          <span className="text-emerald-700 dark:text-emerald-400" data-testid="manager-notice">
            {notice}
          </span>
        )}
      </div>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {list.error && <ErrorAlert>{list.error.message}</ErrorAlert>}

      {selected.size > 0 && (
        <BulkBar
          count={selected.size}
          busy={busy}
          onPin={(pinned) => pin.mutate({ ids, pinned })}
          onImportance={(n) => importance.mutate({ ids, importance: n })}
          onDelete={() => del.mutate({ ids })}
          onRestore={() => restore.mutate({ ids })}
          onPurge={() => purge.mutate({ ids })}
          onClear={() => setSelected(new Set())}
          confirmPurge={confirmPurge}
          setConfirmPurge={setConfirmPurge}
          bulkImportance={bulkImportance}
          setBulkImportance={setBulkImportance}
        />
      )}

      <div className="overflow-x-auto rounded border border-zinc-200 dark:border-zinc-800">
        {/* Fixed layout: the short columns keep their width; only the memory text wraps (it used to squeeze them letter by letter). */}
        <table className="w-full table-fixed text-left text-sm" aria-label="Memories" aria-busy={list.isFetching}>
          <thead className="bg-zinc-100 text-xs uppercase tracking-wide text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
            <tr>
              <Th className="w-8 p-2">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allOnPage}
                  onChange={() => setSelected(allOnPage ? new Set() : new Set(pageIds))}
                />
              </Th>
              <Th className="p-2">Memory</Th>
              <Th className="hidden w-36 p-2 md:table-cell">Space</Th>
              <Th className="hidden w-28 p-2 md:table-cell">Kind</Th>
              <Th className="hidden w-40 p-2 md:table-cell">Time</Th>
              <Th className="hidden w-24 whitespace-nowrap p-2 text-right lg:table-cell">Recalled</Th>
            </tr>
          </thead>
          <tbody>
            {undoRowAfter(null)}
            {data?.items.map((m) => {
              return (
                <Fragment key={m.id}>
                  <MemoryRow
                    m={m}
                    selected={selected.has(m.id)}
                    editing={editing?.id === m.id ? editing : null}
                    busy={busy}
                    saving={edit.isPending}
                    onToggle={() => toggle(m.id)}
                    onSave={(content) => edit.mutate({ id: m.id, content })}
                    onDraft={(draft) => setEditing({ id: m.id, draft })}
                    onCancel={() => setEditing(null)}
                    onEdit={() => (setEditing({ id: m.id, draft: m.content }), setError(null))}
                    onPin={(pinned) => pin.mutate({ ids: [m.id], pinned })}
                    onImportance={(n) => importance.mutate({ ids: [m.id], importance: n })}
                    onRestore={() => restore.mutate({ ids: [m.id] })}
                    onDelete={() => del.mutate({ ids: [m.id] })}
                  />
                  {undoRowAfter(m.id)}
                </Fragment>
              );
            })}
            {data && data.items.length === 0 && (
              <tr>
                <td colSpan={6} className="p-6 text-center text-sm text-zinc-500">
                  No memories match these filters.
                </td>
              </tr>
            )}
            {!data && list.isLoading && (
              <tr>
                <td colSpan={6} className="p-6 text-center text-sm text-zinc-500">
                  Loading…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>

      {data && <PageNav page={data} pageSize={f.pageSize} onPageSize={(n) => set("pageSize", n)} onPage={setPage} />}
    </div>
  );
}
