"use client";

import { BTN, INPUT } from "../../_ui/styles";
import { SharedSpaceOptions } from "../../_ui/ui";

export const KINDS = ["chat", "document", "remember", "import", "consolidated"] as const;
export type Kind = (typeof KINDS)[number];

export interface Filters {
  space: string;
  kind: "" | Kind;
  pinned: "" | "yes" | "no";
  importanceMin: string;
  importanceMax: string;
  status: "live" | "deleted" | "all";
  text: string;
  from: string;
  to: string;
  sort: "timestamp" | "created" | "importance" | "retrievals";
  order: "desc" | "asc";
  pageSize: number;
}

export const EMPTY: Filters = {
  space: "",
  kind: "",
  pinned: "",
  importanceMin: "",
  importanceMax: "",
  status: "live",
  text: "",
  from: "",
  to: "",
  sort: "timestamp",
  order: "desc",
  pageSize: 25,
};

/** The Manager's filter bar: text, space, kind, pinned, importance range, status, dates and sort. */
export function FilterForm({
  f,
  set,
  spaces,
  shared = [],
  onReset,
  onSort,
}: {
  f: Filters;
  set: <K extends keyof Filters>(key: K, value: Filters[K]) => void;
  spaces: string[];
  /** Spaces others share with the person: listed only when picked here, never under "all". */
  shared?: { space: string; name: string; ownerName: string }[];
  onReset: () => void;
  onSort: (sort: Filters["sort"], order: Filters["order"]) => void;
}) {
  return (
    <form
      role="search"
      aria-label="Filter memories"
      onSubmit={(e) => e.preventDefault()}
      className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <div className="flex flex-col gap-2 sm:flex-row">
        <label className="sr-only" htmlFor="mm-text">
          Text contains
        </label>
        <input
          id="mm-text"
          type="search"
          value={f.text}
          onChange={(e) => set("text", e.target.value)}
          placeholder="Text contains…"
          className={`flex-1 ${INPUT}`}
        />
        <button type="button" className={BTN} onClick={onReset}>
          Reset filters
        </button>
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
        <label className="flex items-center gap-1">
          Space
          <select value={f.space} onChange={(e) => set("space", e.target.value)} className={`max-w-[10rem] ${INPUT}`}>
            <option value="">all</option>
            {spaces.map((s) => (
              <option key={s}>{s}</option>
            ))}
            <SharedSpaceOptions spaces={shared} />
          </select>
        </label>
        <label className="flex items-center gap-1">
          Kind
          <select value={f.kind} onChange={(e) => set("kind", e.target.value as Filters["kind"])} className={INPUT}>
            <option value="">all</option>
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1">
          Pinned
          <select
            value={f.pinned}
            onChange={(e) => set("pinned", e.target.value as Filters["pinned"])}
            className={INPUT}
          >
            <option value="">any</option>
            <option value="yes">pinned</option>
            <option value="no">not pinned</option>
          </select>
        </label>
        <span className="flex items-center gap-1">
          <label htmlFor="mm-imin">Importance</label>
          <select
            id="mm-imin"
            aria-label="Importance from"
            value={f.importanceMin}
            onChange={(e) => set("importanceMin", e.target.value)}
            className={INPUT}
          >
            <option value="">0</option>
            {[1, 2, 3, 4, 5].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          –
          <select
            aria-label="Importance to"
            value={f.importanceMax}
            onChange={(e) => set("importanceMax", e.target.value)}
            className={INPUT}
          >
            <option value="">5</option>
            {[0, 1, 2, 3, 4].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </span>
        <label className="flex items-center gap-1">
          Status
          <select
            value={f.status}
            onChange={(e) => set("status", e.target.value as Filters["status"])}
            className={INPUT}
          >
            <option value="live">live</option>
            <option value="deleted">deleted</option>
            <option value="all">all</option>
          </select>
        </label>
        <label className="flex items-center gap-1">
          From
          <input type="date" value={f.from} onChange={(e) => set("from", e.target.value)} className={INPUT} />
        </label>
        <label className="flex items-center gap-1">
          To
          <input type="date" value={f.to} onChange={(e) => set("to", e.target.value)} className={INPUT} />
        </label>
        <label className="flex items-center gap-1">
          Sort
          <select
            value={`${f.sort}:${f.order}`}
            onChange={(e) => {
              const [sort, order] = e.target.value.split(":") as [Filters["sort"], Filters["order"]];
              onSort(sort, order);
            }}
            className={INPUT}
          >
            <option value="timestamp:desc">newest first</option>
            <option value="timestamp:asc">oldest first</option>
            <option value="created:desc">recently added</option>
            <option value="importance:desc">most important</option>
            <option value="retrievals:desc">most retrieved</option>
          </select>
        </label>
      </div>
    </form>
  );
}
