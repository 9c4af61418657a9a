"use client";

import type { SentMemory } from "@/server/chat/memory-policy";

/**
 * Under a reply: what memory left the machine with its prompt — "Sent to <provider>: 2 memories · 3 facts", with the exact
 * memory block that went into the prompt (or "none", and why: not shared with a remote provider, recall
 * off for the conversation, a temporary chat that does not read memory). When nothing reached the provider
 * (it was never asked, or no connection was made) it says "Not sent" and why.
 */
export function SentTo({ sent }: { sent: SentMemory }) {
  const n = sent.ids.length;
  const f = sent.facts?.length ?? 0;
  // The facts the block states ("[What I know]") count apart: the facts leg's and the profile's may come with no memory.
  const what = sent.block
    ? [n || !f ? `${n} memor${n === 1 ? "y" : "ies"}` : "", f ? `${f} fact${f === 1 ? "" : "s"}` : ""]
        .filter(Boolean)
        .join(" · ")
    : "none";
  return (
    <details
      className="mt-1 rounded border border-zinc-200 text-xs dark:border-zinc-800"
      data-testid="sent-to"
      data-sharing={sent.sharing}
    >
      <summary className="cursor-pointer select-none px-2 py-1 text-zinc-600 dark:text-zinc-400">
        {sent.notSent ? (
          <span data-testid="sent-to-line" data-not-sent="true">
            Not sent to {sent.provider}: {sent.notSent}
            {sent.block ? ` · ${what} stayed on this machine` : ""}
          </span>
        ) : (
          <span data-testid="sent-to-line">
            Sent to {sent.provider}: {what}
            {sent.reason ? ` · ${sent.reason}` : ""}
          </span>
        )}
        {sent.local && !sent.notSent && <span className="ml-1 text-zinc-400">(stays on this machine)</span>}
      </summary>
      {sent.block ? (
        <pre
          className="max-h-80 overflow-auto whitespace-pre-wrap break-words border-t border-zinc-100 px-2 py-1 font-mono text-zinc-800 dark:border-zinc-800 dark:text-zinc-200"
          data-testid="sent-block"
        >
          {sent.block}
        </pre>
      ) : (
        <p
          className="border-t border-zinc-100 px-2 py-1 text-zinc-500 dark:border-zinc-800"
          data-testid="sent-block-none"
        >
          No memory was included in the prompt.
        </p>
      )}
    </details>
  );
}
