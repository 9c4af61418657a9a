"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

/**
 * What Memo could not keep of a saved setting after an update changed its shape (server/core/settings-load.ts),
 * shown in the section it belongs to: which part, why, and that the rest is in force. The saved text stays on
 * the server, set aside; dismissing forgets the notice.
 */
export function UnkeptNotice({ settings }: { settings: string[] }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.unkeptSettings.list.queryOptions(undefined, { retry: false }));
  const dismiss = useMutation(
    trpc.unkeptSettings.dismiss.mutationOptions({
      onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.unkeptSettings.list.queryKey() }),
    }),
  );
  // A key, or a family of keys by its prefix ("retrieval:").
  const mine = (list.data ?? []).filter((u) =>
    settings.some((s) => (s.endsWith(":") ? u.key.startsWith(s) : u.key === s)),
  );
  if (mine.length === 0) return null;
  return (
    <div
      role="status"
      data-testid="unkept-settings"
      className="space-y-1 rounded border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-800 dark:bg-amber-950"
    >
      {mine.map((u) => (
        <div key={u.key}>
          <p>
            <strong>Some saved settings could not be kept</strong> after an update changed them; the rest of what you
            saved is in force, and these read as their defaults (the saved value is kept aside on the server):
          </p>
          <ul className="list-disc pl-5">
            {u.entries.flatMap((e) =>
              e.unkept.map((x) => (
                <li key={`${e.at}-${x.path}`}>
                  <code className="break-all">{x.path}</code>: {x.reason} (found {e.at.slice(0, 10)})
                </li>
              )),
            )}
          </ul>
          <button
            type="button"
            className="mt-1 rounded border border-amber-400 px-2 py-0.5 text-xs hover:bg-amber-100 dark:border-amber-700 dark:hover:bg-amber-900"
            onClick={() => dismiss.mutate({ key: u.key })}
            disabled={dismiss.isPending}
          >
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
