import type { MemoContext } from "../../core/context";
import { ServiceError } from "../../core/errors";
import { DEFAULT_SPACE } from "../../core/space-name";
import {
  findLiveContaining,
  getMemory,
  restoreMemories,
  softDeleteMemories,
  missingSpace,
  requireReadableSpace,
  requireWritableSpace,
  spaceExists,
  type MemoryRow,
} from "../store";
import { isMine, mySpace } from "../../core/acting";
import { factsLeftWithout } from "../facts/cascade";

export const FORGET_UNDO_DAYS = 7;

export interface ForgetResult {
  count: number;
  items: { id: string; content: string; timestamp: string }[];
  /** Restore these ids (restoreMemories) until `until` to undo. */
  undo: { ids: string[]; until: string };
  message: string;
  /** The facts that went with them (their every live source was among them; issue 54). */
  facts?: { id: string; text: string }[];
}

export interface ForgetPreview {
  count: number;
  items: { id: string; content: string; timestamp: string; kind: string; pinned: boolean }[];
  /** The current facts forgetting them would remove (every live source among them; issue 54); absent: none. */
  facts?: { id: string; text: string }[];
  /** How many of them are pinned. */
  pinned: number;
  preview: true;
  message: string;
}

/** Above this many matches (or with any pinned one) the chat asks before forgetting. */
export const FORGET_CONFIRM_OVER = 3;

function matchForget(ctx: MemoContext, pattern: string, space: string, write: boolean): MemoryRow[] {
  // A blank pattern is a substring of everything: never let it reach the store (the schemas check this too).
  if (pattern.trim().length < 2) throw new ServiceError(400, "pattern must have at least 2 characters");
  // The same 404 for a space that does not exist and one not shared with the person (missingSpace).
  if (!spaceExists(ctx.db, space)) throw missingSpace(space);
  // A shared space: previewing needs a share, forgetting a read-write one (a space not shared reads as missing).
  if (write) requireWritableSpace(ctx.db, space);
  else requireReadableSpace(ctx.db, space);
  return findLiveContaining(ctx.db, space, pattern.trim());
}

const plural = (n: number) => `${n} memor${n === 1 ? "y" : "ies"}`;
const factsPlural = (n: number) => `${n} fact${n === 1 ? "" : "s"}`;
const quoted = (facts: { text: string }[]) =>
  facts
    .slice(0, 10)
    .map((f) => `“${f.text}”`)
    .join(", ") + (facts.length > 10 ? ` and ${facts.length - 10} more` : "");

/** What `/forget <pattern>` would remove, deleting nothing. */
export function forgetPreview(ctx: MemoContext, pattern: string, space = mySpace(DEFAULT_SPACE)): ForgetPreview {
  const matched = matchForget(ctx, pattern, space, false);
  const items = matched.map((m) => ({
    id: m.id,
    content: m.content,
    timestamp: m.timestamp,
    kind: m.kind,
    pinned: m.pinned,
  }));
  const pinned = items.filter((i) => i.pinned).length;
  const facts = factsLeftWithout(
    ctx.db,
    items.map((i) => i.id),
  );
  return {
    count: items.length,
    items,
    ...(facts.length ? { facts } : {}),
    pinned,
    preview: true,
    message: items.length
      ? `${plural(items.length)} match “${pattern.trim()}”${pinned ? ` (${pinned} pinned)` : ""}${facts.length ? `; forgetting ${items.length === 1 ? "it" : "them"} would remove ${factsPlural(facts.length)}: ${quoted(facts)}` : ""}; nothing was forgotten.`
      : `No memory matches “${pattern.trim()}”.`,
  };
}

/** Soft-delete exactly these memories (a confirmed preview), those still live; restorable for 7 days. */
export function forgetIds(ctx: MemoContext, ids: string[], label: string): ForgetResult {
  const before = new Map(ids.map((id) => [id, getMemory(ctx.db, id)]));
  const facts = factsLeftWithout(ctx.db, ids);
  const changed = new Set(softDeleteMemories(ctx.db, ids));
  const items = ids
    .filter((id) => changed.has(id))
    .map((id) => ({ id, content: before.get(id)!.content, timestamp: before.get(id)!.timestamp }));
  const until = new Date(Date.now() + FORGET_UNDO_DAYS * 86_400_000).toISOString();
  // Forgotten in a space shared with the acting person, a memory is in its owner's trash: theirs to restore.
  const undoable = items.filter((i) => isMine(before.get(i.id)!.spaceId)).map((i) => i.id);
  const undo =
    undoable.length === items.length
      ? ` Undo is possible for ${FORGET_UNDO_DAYS} days.`
      : ` ${undoable.length ? `${plural(items.length - undoable.length)} of them are` : "They are"} in the shared space's trash: its owner can restore them.`;
  return {
    count: items.length,
    items,
    undo: { ids: undoable, until },
    ...(facts.length ? { facts } : {}),
    message: items.length
      ? `Forgot ${plural(items.length)} matching “${label}”${facts.length ? `, and ${factsPlural(facts.length)} learned from ${items.length === 1 ? "it" : "them"}: ${quoted(facts)}` : ""}.${undo}`
      : `No memory matches “${label}”.`,
  };
}

/** `/forget <pattern>`: soft-delete live memories of the space whose content contains the pattern (case-insensitive). */
export function forget(ctx: MemoContext, pattern: string, space = mySpace(DEFAULT_SPACE)): ForgetResult {
  return forgetIds(
    ctx,
    matchForget(ctx, pattern, space, true).map((m) => m.id),
    pattern.trim(),
  );
}

/**
 * `/forget` as the APIs take it (REST POST /api/v1/forget and tRPC memory.forget): with `preview: true` what
 * it would remove, deleting nothing; else the forget. One function, so the two answer alike.
 */
export function forgetRequest(
  ctx: MemoContext,
  input: { pattern: string; space?: string; preview?: boolean },
): ForgetResult | ForgetPreview {
  return input.preview ? forgetPreview(ctx, input.pattern, input.space) : forget(ctx, input.pattern, input.space);
}

export function restore(ctx: MemoContext, ids: string[]): { restored: string[] } {
  return { restored: restoreMemories(ctx.db, ids) };
}
