"use client";

/** Whose a memory is, beside it, when it is not simply the person's own (a shared space, or written by a sharee). */
export function WhoseBadge({ whose }: { whose?: { owner: string; writer: string | null } | null }) {
  if (!whose) return null;
  return (
    <span
      className="ml-1 rounded bg-amber-100 px-1.5 text-xs font-normal text-amber-900 dark:bg-amber-950 dark:text-amber-200"
      data-testid="memory-whose"
    >
      {whose.owner}’s{whose.writer ? ` · written by ${whose.writer}` : ""}
    </span>
  );
}
