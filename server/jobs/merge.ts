/**
 * The app's MergeFn for consolidation: the configured chat provider (server/chat/providers/), asked
 * for a non-streaming completion at temperature 0, its answer cleaned of prefaces, quotes and fences.
 */
import type Database from "better-sqlite3";
import { loadPrivacySettings, providerEndpoint, sharingFor } from "../chat/memory-policy";
import { complete, hasProvider, providerStatus, resolveProviderConfig, type ChatMessage } from "../chat/providers";
import type { MergeFn } from "../memory/lifecycle/consolidate";
import { OWNER_ID, spacePersonOf } from "../core/space-name";

export const MERGE_SYSTEM_PROMPT =
  "You merge two notes from a person's memory store that say nearly the same thing. Write ONE statement " +
  "that keeps every fact from both (names, places, dates, numbers), drops the repetition, and adds nothing " +
  "that is not in them. Answer with the statement only: no preface, no quotes, no list.";

/** The chat messages asking to merge two statements (the fixture server in tests parses these tags). */
export function mergeMessages(a: string, b: string): ChatMessage[] {
  return [
    { role: "system", content: MERGE_SYSTEM_PROMPT },
    { role: "user", content: `<memory_1>\n${a}\n</memory_1>\n<memory_2>\n${b}\n</memory_2>` },
  ];
}

/** A model's answer as a plain statement (prefaces, quotes and fences removed). */
export function cleanMergedStatement(raw: string): string {
  let t = raw.trim();
  const fenced = t.match(/^```[a-z]*\n([\s\S]*?)\n?```$/i);
  if (fenced) t = fenced[1]!.trim();
  t = t.replace(/^(merged( statement| memory)?|statement|answer)\s*:\s*/i, "").trim();
  const quoted = t.match(/^["“'](.*)["”']$/s);
  if (quoted) t = quoted[1]!.trim();
  // Empty, too long, refusal or meta text: consolidation checks and skips it (server/memory/lifecycle/merge-guard.ts).
  return t;
}

/**
 * The provider-backed MergeFn, or null with the reason when no chat provider is configured, or when no
 * person's memories may go to it (merging sends both to it; pinned ones are never merged, so "pinned memories
 * only" allows nothing here): server/chat/memory-policy.ts. Each space is merged under its own person's
 * choice for the provider (issue 43: a person's choice follows their memories, whoever runs the job):
 * `mayMergeIn` says why a space may not be, or null.
 */
export function providerMerge(db: Database.Database): {
  merge: MergeFn | null;
  reason: string | null;
  mayMergeIn?: (spaceId: string) => string | null;
} {
  if (!hasProvider(db))
    return {
      merge: null,
      reason: `nothing was merged: ${providerStatus(db).problem ?? "no chat provider is configured"}`,
    };
  const cfg = resolveProviderConfig(db);
  const endpoint = providerEndpoint(cfg, cfg.active.value!);
  const refusals = new Map<string, string | null>();
  const refusal = (personId: string): string | null => {
    if (!refusals.has(personId)) {
      const sharing = sharingFor(loadPrivacySettings(db, personId), endpoint);
      const how = sharing === "ask" ? "not allowed yet" : sharing === "pinned" ? "pinned memories only" : "off";
      refusals.set(
        personId,
        sharing === "on"
          ? null
          : `memory sharing with ${endpoint.label} (${endpoint.host}) is ${how} (Settings → Providers), and merging sends memories to it`,
      );
    }
    return refusals.get(personId)!;
  };
  const people = (db.prepare("SELECT DISTINCT person_id AS id FROM spaces").all() as { id: string }[]).map((r) => r.id);
  if (!people.includes(OWNER_ID)) people.unshift(OWNER_ID);
  if (people.every((p) => refusal(p) !== null))
    return { merge: null, reason: `nothing was merged: ${refusal(OWNER_ID)}` };
  const merge: MergeFn = async (a, b, signal) =>
    cleanMergedStatement(await complete(mergeMessages(a, b), { db, temperature: 0, maxTokens: 512, signal }));
  return { merge, reason: null, mayMergeIn: (spaceId) => refusal(spacePersonOf(spaceId)) };
}
