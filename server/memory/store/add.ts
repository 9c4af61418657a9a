import type { MemoContext } from "../../core/context";
import { ServiceError } from "../../core/errors";
import type { NewMemoryInput } from "../../core/validators";
import { DEFAULT_SPACE } from "../../core/space-name";
import { chunkSaid, chunkWords, type Said, type SpeakerSpan } from "./chunker";
import { activeModel } from "../index/model-check";
import {
  contentHash,
  findLiveByHash,
  insertMemories,
  requireWritableSpace,
  setPinned,
  writeTransaction,
  type NewMemory,
} from "./.";
import { mySpace } from "../../core/acting";

/**
 * Add memories. Each text is chunked (300 words, 50 overlap) and embedded before the write; then every
 * chunk of every item is written in ONE transaction (all or nothing). A chunk whose exact content is
 * already live in the space is not stored twice: its existing id is returned. Returns ids per item.
 *
 * `hooks` run inside that transaction: `skip` (return ids to write nothing and answer those instead) and
 * `after` (record the ids with the write, e.g. on the chat message whose exchange this is).
 */
/**
 * What to store, with who said it: `said` is an exchange's parts (stored as "<label>: <text>" lines, each
 * chunk with the spans of its speakers), `by` the one speaker of a whole text written without a label
 * (a /remember note is the person's). Without either nothing is known of the speaker (a document).
 */
export type AddItem = NewMemoryInput & { said?: Said[]; by?: Omit<SpeakerSpan, "start" | "end"> };

export interface AddHooks {
  skip?: () => string[][] | null;
  after?: (ids: string[][]) => void;
}

export async function addMemories(
  ctx: MemoContext,
  items: AddItem[],
  defaults: Partial<NewMemory> = {},
  hooks: AddHooks = {},
): Promise<string[][]> {
  // Before anything is looked up in a space: a text already live in a space the person may not write (another
  // person's, not shared read-write) must not answer with that memory's id.
  for (const space of new Set(items.map((it) => it.space ?? defaults.spaceId ?? mySpace(DEFAULT_SPACE))))
    requireWritableSpace(ctx.db, space);
  const { model } = await activeModel(ctx);
  type Slot = { item: number; existing?: string; chunk?: NewMemory };
  const slots: Slot[] = [];
  const pendingHashes = new Map<string, number>();
  items.forEach((it, idx) => {
    const spaceId = it.space ?? defaults.spaceId ?? mySpace(DEFAULT_SPACE);
    const chunks = it.said
      ? chunkSaid(it.said, 300, 50)
      : chunkWords(it.text, 300, 50).map((content) => ({
          content,
          speakers: it.by ? [{ ...it.by, start: 0, end: content.length }] : null,
        }));
    chunks.forEach(({ content, speakers }, chunkIndex) => {
      const key = `${spaceId}\u0000${contentHash(content)}`;
      const existing = findLiveByHash(ctx.db, spaceId, contentHash(content));
      if (existing) return slots.push({ item: idx, existing: existing.id });
      if (pendingHashes.has(key)) return slots.push({ item: idx, existing: `pending:${pendingHashes.get(key)}` });
      pendingHashes.set(key, slots.length);
      slots.push({
        item: idx,
        chunk: {
          ...defaults,
          spaceId,
          content,
          timestamp: it.timestamp ?? defaults.timestamp,
          kind: it.kind ?? defaults.kind ?? "chat",
          importance: it.importance ?? defaults.importance,
          pinned: it.pinned ?? defaults.pinned,
          chunkIndex: chunks.length > 1 ? chunkIndex : (defaults.chunkIndex ?? null),
          speakers,
        },
      });
    });
  });
  const toWrite = slots.filter((s) => s.chunk);
  const vectors = toWrite.length ? await ctx.embedder.embedDocuments(toWrite.map((s) => s.chunk!.content)) : [];
  return writeTransaction(ctx.db, () => {
    const skipped = hooks.skip?.();
    if (skipped) return skipped;
    const newIds = toWrite.length
      ? insertMemories(
          ctx.db,
          toWrite.map((s) => s.chunk!),
          vectors,
          model,
        )
      : [];
    const idBySlot = new Map<Slot, string>();
    toWrite.forEach((s, i) => idBySlot.set(s, newIds[i]!));
    // Pinning an existing duplicate: /remember of something already stored pins it.
    for (const s of slots) {
      if (s.existing && !s.existing.startsWith("pending:") && items[s.item]!.pinned)
        setPinned(ctx.db, s.existing, true);
    }
    const out: string[][] = items.map(() => []);
    for (const s of slots) {
      const id = s.chunk
        ? idBySlot.get(s)!
        : s.existing!.startsWith("pending:")
          ? idBySlot.get(slots[Number(s.existing!.slice(8))]!)!
          : s.existing!;
      if (!out[s.item]!.includes(id)) out[s.item]!.push(id);
    }
    hooks.after?.(out);
    return out;
  });
}

/** `/remember <text>`: a pinned memory (importance 5, never decays). */
export async function remember(
  ctx: MemoContext,
  text: string,
  space = mySpace(DEFAULT_SPACE),
): Promise<{ ids: string[]; message: string }> {
  if (text.trim().length === 0) throw new ServiceError(400, "text must not be empty");
  const [ids] = await addMemories(ctx, [
    { text, space, kind: "remember", pinned: true, importance: 5, by: { role: "user" } },
  ]);
  return { ids: ids!, message: `Remembered (pinned): “${text.trim().slice(0, 200)}”` };
}
