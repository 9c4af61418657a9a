/** Class strings of the shared form controls (one place, so every page's buttons and inputs look alike). */
export const INPUT = "rounded border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900";
export const BTN =
  "rounded border border-zinc-300 px-2 py-1 text-xs font-medium hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";
export const BTN_PRIMARY =
  "rounded bg-zinc-900 px-3 py-1 text-xs font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900";
export const BTN_DANGER =
  "rounded border border-red-300 px-2 py-1 text-xs font-medium text-red-700 hover:bg-red-50 disabled:opacity-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950";
/** A text input filling its column. */
export const INPUT_WIDE =
  "w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900";
/** A secondary button at body-text size. */
export const BTN_MD =
  "rounded border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";
/** The primary action, text-sm on a compact row. */
export const BTN_PRIMARY_SM =
  "rounded bg-zinc-900 px-3 py-1 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900";
/** The primary action at body-text size. */
export const BTN_PRIMARY_MD =
  "rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900";
/** A bordered panel. */
export const CARD = "rounded border border-zinc-200 p-3 dark:border-zinc-800";
/**
 * Target sizes on a phone (WCAG 2.2, 2.5.8): every control at least 24×24 px, the frequent ones (Copy, Edit,
 * Regenerate, Undo, Send) 44×44; from the sm breakpoint up a pointer is precise and the compact sizes stay.
 */
export const TAP = "max-sm:inline-flex max-sm:min-h-6 max-sm:min-w-6 max-sm:items-center max-sm:justify-center";
export const TAP_FREQUENT =
  "max-sm:inline-flex max-sm:min-h-11 max-sm:min-w-11 max-sm:items-center max-sm:justify-center";
/** A result's badge colours by how it matched (vector, fts, hybrid, neighbour) or that it is a fact. */
export const MATCH_BADGE: Record<string, string> = {
  hybrid: "bg-violet-100 text-violet-800 dark:bg-violet-900 dark:text-violet-100",
  vector: "bg-sky-100 text-sky-800 dark:bg-sky-900 dark:text-sky-100",
  fts: "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100",
  neighbour: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100",
  fact: "bg-rose-100 text-rose-800 dark:bg-rose-900 dark:text-rose-100",
};
