"use client";

import { type Dispatch, type SetStateAction, useEffect } from "react";
import { BTN, INPUT } from "../../_ui/styles";
import { UndoBar } from "../../_ui/undo-bar";
import type { Filters } from "./filter-form";

/** An undo in the table itself, where the deleted row was. */
export function UndoRow(props: { text: string; busy: boolean; onUndo: () => void; onClose: () => void }) {
  return (
    <tr data-testid="undo-toast">
      <td colSpan={6} className="p-1">
        <UndoBar {...props} />
      </td>
    </tr>
  );
}

/** Links from elsewhere (the chat's "Remembered" line) open the Manager filtered: ?text=&space=&status= */
export function useFiltersFromUrl(setF: Dispatch<SetStateAction<Filters>>) {
  useEffect(() => {
    const q = new URLSearchParams(window.location.search);
    const status = q.get("status");
    const from: Partial<Filters> = {
      ...(q.get("text") ? { text: q.get("text")! } : {}),
      ...(q.get("space") ? { space: q.get("space")! } : {}),
      ...(status === "live" || status === "deleted" || status === "all" ? { status } : {}),
    };
    if (Object.keys(from).length) setF((prev) => ({ ...prev, ...from }));
  }, [setF]);
}

/** The filters as manager.list's input: only the filters that are set (`text` is the debounced text). */
export function listInput(f: Filters, text: string, page: number) {
  return {
    ...(f.space ? { space: f.space } : {}),
    ...(f.kind ? { kind: f.kind } : {}),
    ...(f.pinned ? { pinned: f.pinned === "yes" } : {}),
    ...(f.importanceMin !== "" ? { importanceMin: Number(f.importanceMin) } : {}),
    ...(f.importanceMax !== "" ? { importanceMax: Number(f.importanceMax) } : {}),
    ...(text.trim() ? { text: text.trim() } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
    status: f.status,
    sort: f.sort,
    order: f.order,
    page,
    pageSize: f.pageSize,
  };
}

/** Below the table: how many match, which page, the page size, Previous and Next. */
export function PageNav({
  page: data,
  pageSize,
  onPageSize,
  onPage,
}: {
  page: { total: number; page: number; pages: number };
  pageSize: number;
  onPageSize: (n: number) => void;
  onPage: (page: number) => void;
}) {
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-2 text-sm">
      <span data-testid="page-info">
        {data.total} {data.total === 1 ? "memory" : "memories"} · page {data.page} of {data.pages}
      </span>
      <span className="flex items-center gap-2">
        <label className="flex items-center gap-1">
          Per page
          <select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))} className={INPUT}>
            {[10, 25, 50, 100].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <button type="button" className={BTN} disabled={data.page <= 1} onClick={() => onPage(data.page - 1)}>
          Previous
        </button>
        <button type="button" className={BTN} disabled={data.page >= data.pages} onClick={() => onPage(data.page + 1)}>
          Next
        </button>
      </span>
    </nav>
  );
}
