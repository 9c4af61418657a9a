"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_trpc/client";
import { localDate } from "../../_ui/local-time";
import { ErrorAlert } from "../../_ui/ui";
import { type Fact, mergedDuplicate, originLabel } from "./fact-types";

/** "Show history": every earlier value of a fact with the dates it held (facts.history), newest first. */
export function FactHistory({ fact, own, id }: { fact: Fact; own: boolean; id: string }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.facts.history.queryOptions({ id: fact.id }));
  const versions = history.data?.facts ?? [];
  const earlier = versions.filter((v) => v.id !== fact.id);
  return (
    <div id={id} className="mt-2 border-l-2 border-zinc-200 pl-3 dark:border-zinc-700" data-testid="fact-history">
      <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Earlier values</h4>
      {history.isLoading && <p className="text-sm text-zinc-500">Loading the history…</p>}
      {history.error && <ErrorAlert>{history.error.message}</ErrorAlert>}
      {history.data && earlier.length === 0 && (
        <p className="text-sm text-zinc-500">None: this is the first value Memo knew.</p>
      )}
      {earlier.length > 0 && (
        <ol className="mt-1 space-y-1.5 text-sm">
          {earlier.map((v) => (
            <li key={v.id} data-testid="fact-version">
              <span className="text-zinc-700 line-through decoration-zinc-400 dark:text-zinc-300">{v.text}</span>
              <span className="block text-xs text-zinc-500" data-testid="fact-version-dates">
                {v.validTo === v.validFrom ? (
                  // Ended where it began: it never held on its own (a duplicate merged, or a value corrected).
                  <>
                    since <time dateTime={v.validFrom}>{localDate(v.validFrom)}</time> ·{" "}
                    {mergedDuplicate(v, versions) ? "merged into the fact above as a duplicate" : "corrected"}
                  </>
                ) : (
                  <>
                    from <time dateTime={v.validFrom}>{localDate(v.validFrom)}</time> until{" "}
                    <time dateTime={v.validTo ?? undefined}>{localDate(v.validTo)}</time>
                  </>
                )}{" "}
                · {originLabel(v, own)} · recorded {localDate(v.recordedAt)}
              </span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
