"use client";

import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { DEFAULT_SPACE } from "@/server/core/space-name";
import { IMPORT_FORMAT_IDS, IMPORT_FORMATS, namesList } from "@/server/services/import/formats";
import { useTRPC } from "../../_trpc/client";
import { INPUT } from "../../_ui/styles";
import { ErrorAlert } from "../../_ui/ui";
import { UndoBar } from "../../_ui/undo-bar";
import { useDebounced } from "../../_ui/use-debounced";
import { FactItem } from "./fact-item";
import { Proposals } from "./proposals";
import type { Fact, SpaceGroup } from "./fact-types";

const LINK = "text-blue-700 underline dark:text-blue-400";
/** The imports that can teach facts on request (conversation exports: formats.ts), named from the registry. */
const IMPORT_NAMES = IMPORT_FORMAT_IDS.filter((id) => IMPORT_FORMATS[id].conversationPrefix).map(
  (id) => IMPORT_FORMATS[id].name,
);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The reader's own facts by space (personal first), then each space shared with them that holds facts. */
function groupFacts(
  own: Fact[],
  shared: { space: string; name: string; ownerName: string; writable: boolean; facts: Fact[] }[],
  searching: boolean,
): SpaceGroup[] {
  const bySpace = new Map<string, Fact[]>();
  for (const f of own) bySpace.set(f.space, [...(bySpace.get(f.space) ?? []), f]);
  // While searching, the best match's space comes first; otherwise personal, then by name.
  const names = [...bySpace.keys()];
  if (!searching) names.sort((a, b) => (a === DEFAULT_SPACE ? -1 : b === DEFAULT_SPACE ? 1 : a.localeCompare(b)));
  return [
    ...names.map((s) => ({ space: s, name: s, ownerName: null, writable: true, facts: bySpace.get(s)! })),
    ...shared.filter((g) => g.facts.length > 0),
  ];
}

/** What a delete did, exactly (issue 54): the fact, and its memories when the reader chose to forget them too. */
function deletedText(
  f: Fact | undefined,
  r: { sourcesForgotten?: string[]; factsForgotten?: { text: string }[] },
): string {
  const short = f ? (f.text.length > 60 ? `“${f.text.slice(0, 60)}…”` : `“${f.text}”`) : "the fact";
  if (!r.sourcesForgotten) {
    const n = f?.sources.length ?? 0;
    return n
      ? `Forgot ${short} and its history. Memo no longer states it, but the ${plural(n, "message")} it came from ${n === 1 ? "is" : "are"} still in memory and can be recalled.`
      : `Forgot ${short} and its history. Memo no longer states it.`;
  }
  const m = r.sourcesForgotten.length;
  const others = r.factsForgotten ?? [];
  return `Forgot ${short} and its history, and the ${plural(m, "message")} it came from${
    others.length
      ? ` with ${plural(others.length, "other fact")} learned only from them (${others.map((o) => `“${o.text}”`).join(", ")})`
      : ""
  }. Memo no longer states it or recalls ${m === 1 ? "that message" : "them"}.`;
}

/** No fact yet: how facts are learned, and where learning is switched. */
function EmptyState({ earlier }: { earlier: number }) {
  return (
    <div
      className="space-y-2 rounded border border-dashed border-zinc-300 p-4 text-sm dark:border-zinc-700"
      data-testid="facts-empty"
    >
      {earlier > 0 ? (
        <p className="font-medium">
          No current facts. The {plural(earlier, "fact")} Memo learned before {earlier === 1 ? "was" : "were"} deleted,
          forgotten with {earlier === 1 ? "its" : "their"} memories, or replaced.
        </p>
      ) : (
        <p className="font-medium">Memo has not learned any facts yet.</p>
      )}
      <p className="text-zinc-600 dark:text-zinc-400">
        After each exchange, Memo asks a model for the short statements it contains — where you live, your work, the
        people and things you mention — and checks them against what it already knows: a new value replaces the old one,
        which stays in the history. Each fact appears here with the date it became true and the chat it came from, for
        you to correct, confirm or delete.
      </p>
      <p className="text-zinc-600 dark:text-zinc-400">
        Learning is switched per provider in{" "}
        <Link href="/settings#learning" className={LINK}>
          Settings → Learning facts
        </Link>{" "}
        (on by default for a model on this machine, off for a remote one, since it costs an extra call per exchange).
        Documents and {namesList(IMPORT_NAMES, "and")} imports teach facts only when you ask, on the{" "}
        <Link href="/ingest" className={LINK}>
          Ingest
        </Link>{" "}
        and{" "}
        <Link href="/memory/manager" className={LINK}>
          Manager
        </Link>{" "}
        pages. Temporary chats and turns with memory off teach nothing.
      </p>
    </div>
  );
}

/**
 * "What Memo knows" (issue 42): the reader's current facts by space — their own, then those shared with them,
 * marked with whose they are — searchable; each one editable (a new version), confirmable, deletable with an
 * undo, with its history and its sources on request. Read-only shares show their facts without the actions.
 */
export function Knows() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [text, setText] = useState("");
  const query = useDebounced(text.trim(), 250);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [undo, setUndo] = useState<{ id: string; text: string; memories: string[] } | null>(null);
  const [focusId, setFocusId] = useState<string | null>(null);

  const input = query ? { q: query, limit: 100 } : {};
  const shares = useQuery(trpc.spaces.shares.queryOptions());
  const summary = useQuery(trpc.facts.summary.queryOptions());
  const own = useQuery({ ...trpc.facts.list.queryOptions(input), placeholderData: keepPreviousData });
  const withMe = shares.data?.withMe ?? [];
  const shared = useQueries({
    queries: withMe.map((s) => ({
      ...trpc.facts.list.queryOptions({ ...input, space: s.space }),
      placeholderData: keepPreviousData,
    })),
  });
  const groups = groupFacts(
    own.data?.facts ?? [],
    withMe.map((s, i) => ({
      space: s.space,
      name: s.name,
      ownerName: s.ownerName,
      writable: s.mode === "write",
      facts: shared[i]?.data?.facts ?? [],
    })),
    query !== "",
  );
  const total = groups.reduce((n, g) => n + g.facts.length, 0);
  const loading = own.isLoading || shares.isLoading || shared.some((r) => r.isLoading);
  const fetching = own.isFetching || shared.some((r) => r.isFetching);
  const loadError = own.error ?? shares.error ?? shared.find((r) => r.error)?.error ?? null;

  const refresh = () => qc.invalidateQueries({ queryKey: trpc.facts.pathKey() });
  const onError = (e: { message: string }) => {
    setNotice(null);
    setError(e.message);
  };
  const done = (message: string | null) => {
    setError(null);
    setNotice(message);
    void refresh();
  };
  const edit = useMutation(
    trpc.facts.edit.mutationOptions({
      onSuccess: (r) => {
        setFocusId(r.fact.id);
        done(r.created ? "Saved as a new version; the old value is in its history." : "No change.");
      },
      onError,
    }),
  );
  const confirm = useMutation(trpc.facts.confirm.mutationOptions({ onSuccess: () => done("Confirmed."), onError }));
  const del = useMutation(
    trpc.facts.delete.mutationOptions({
      onSuccess: (r, v) => {
        const g = groups.find((x) => x.facts.some((y) => y.id === v.id));
        const f = g?.facts.find((x) => x.id === v.id);
        const what = deletedText(f, r);
        // A shared space's trash is its owner's (issue 48): a sharee's delete cannot be undone by them.
        if (g?.ownerName) return done(`${what} Only ${g.ownerName} can bring it back.`);
        // The Undo bar says what happened (one notice, not the bar and a second line at once).
        setUndo({ id: r.id, text: what, memories: r.sourcesForgotten ?? [] });
        done(null);
      },
      onError,
    }),
  );
  const restore = useMutation(
    trpc.facts.restore.mutationOptions({
      onSuccess: (r, v) => {
        setUndo(null);
        setFocusId(r.fact.id);
        const n = v.memories?.length ?? 0;
        done(
          n
            ? `Brought back, with its history and the ${plural(n, "message")} it came from.`
            : "Brought back, with its history.",
        );
      },
      onError,
    }),
  );
  const busy = edit.isPending || confirm.isPending || del.isPending || restore.isPending;

  return (
    <div className="space-y-4">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        What Memo believes is true now, by space: short statements learned from your chats (and from documents or
        imports you chose), each with the date it became true and where it came from. Correct what is wrong — an edit is
        a new version, the old value stays in the history — confirm what is right, delete what Memo should forget.
      </p>
      <form
        role="search"
        aria-label="Search facts"
        onSubmit={(e) => e.preventDefault()}
        className="flex flex-col gap-2 rounded border border-zinc-200 p-3 sm:flex-row sm:items-center dark:border-zinc-800"
      >
        <label htmlFor="facts-q" className="text-sm font-medium">
          Search
        </label>
        <input
          id="facts-q"
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="A word, a name, or what it is about…"
          className={`min-w-0 flex-1 ${INPUT}`}
        />
      </form>

      {/* How many, and what the last action did (announced). */}
      <div className="-mt-2 flex min-h-5 flex-wrap items-baseline justify-between gap-x-3 text-sm">
        <span className="text-xs text-zinc-500" data-testid="facts-count">
          {loading || (total === 0 && !query)
            ? ""
            : query
              ? `${plural(total, "fact")} match`
              : `${plural(total, "fact")} in ${plural(groups.length, "space")}`}
        </span>
        <span aria-live="polite" className="text-emerald-700 dark:text-emerald-400" data-testid="facts-notice">
          {notice}
        </span>
      </div>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {loadError && <ErrorAlert>Could not load the facts: {loadError.message}</ErrorAlert>}
      {undo && (
        <UndoBar
          key={undo.id}
          text={undo.text}
          busy={busy}
          onUndo={() => restore.mutate({ id: undo.id, ...(undo.memories.length ? { memories: undo.memories } : {}) })}
          onClose={() => setUndo(null)}
          focusUndo
          wrap
          testId="fact-undo"
        />
      )}

      <Proposals onDone={done} onError={onError} />

      {/* Busy while the list is not yet the answer to what is typed (the search waits for a pause in typing). */}
      <div aria-busy={fetching || text.trim() !== query} data-query={query} data-testid="facts">
        {loading && <p className="p-6 text-center text-sm text-zinc-500">Loading what Memo knows…</p>}
        {!loading && !loadError && total === 0 && !query && (
          <EmptyState earlier={(summary.data?.replaced ?? 0) + (summary.data?.deleted ?? 0)} />
        )}
        {!loading && total === 0 && query && (
          <p className="p-6 text-center text-sm text-zinc-500" data-testid="facts-none">
            No fact matches “{query}”.
          </p>
        )}
        <div className="space-y-4">
          {groups.map((g) => (
            <section
              key={g.space}
              aria-labelledby={`space-${g.space}`}
              className="rounded border border-zinc-200 px-3 dark:border-zinc-800"
              data-testid="fact-space"
              data-space={g.space}
            >
              <h2 id={`space-${g.space}`} className="flex flex-wrap items-center gap-2 pt-3 text-lg font-semibold">
                <span className="break-all">{g.name}</span>
                {g.ownerName && (
                  <span
                    className="rounded bg-amber-100 px-1.5 text-xs font-normal text-amber-900 dark:bg-amber-950 dark:text-amber-200"
                    data-testid="fact-space-whose"
                  >
                    {g.ownerName}’s · {g.writable ? "shared with you" : "shared with you, read-only"}
                  </span>
                )}
                <span className="text-xs font-normal text-zinc-500">{plural(g.facts.length, "fact")}</span>
              </h2>
              <ul aria-label={`Facts in ${g.name}`}>
                {g.facts.map((f) => (
                  <FactItem
                    key={f.id}
                    fact={f}
                    own={g.ownerName === null}
                    writable={g.writable}
                    busy={busy}
                    saving={edit.isPending && edit.variables?.id === f.id}
                    focus={focusId === f.id}
                    onSave={async (t) => {
                      try {
                        await edit.mutateAsync({ id: f.id, text: t });
                        return true;
                      } catch {
                        return false;
                      }
                    }}
                    onConfirm={() => confirm.mutate({ id: f.id })}
                    onDelete={(forget) => del.mutate({ id: f.id, ...(forget ? { sources: "forget" as const } : {}) })}
                  />
                ))}
              </ul>
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}
