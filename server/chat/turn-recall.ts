/** A chat turn's recall (server/chat/turn.ts): retrieval for the prompt, packed under the token budget, and the promotion of what it found. */
import { estimateTokens } from "../memory/retrieval/token-estimate";
import { packMemories, sharedDays, type PackOptions } from "../memory/retrieval/memory-block";
import { factWriters, type MemorySource } from "../memory/retrieval/writers";
import { factBlock, factsToPack, type KnownFact } from "../memory/retrieval/fact-block";
import { rankedProfile, withinTokens } from "../memory/retrieval/profile";
import { withSources } from "../memory/retrieval/fact-leg";
import type { Provenance } from "../memory/store/provenance";
import { packable, type RetrievedMemory } from "../memory/retrieval/retrieve";
import { recordRetrievals } from "../memory/store";
import type { RecalledMemory } from "./conversations";
import { search } from "../memory/retrieval/search";
import { chunkSection } from "../memory/retrieval/document-names";
import type { Embedder, MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import type { AddedSpace } from "./memory-policy";
import type { StageTimer } from "../memory/retrieval/stages";
import type { Whose } from "../memory/store";

export const ms = (t0: number) => Math.round((performance.now() - t0) * 10) / 10;

/**
 * The turn's embedder: each query text embedded once, however many spaces the turn searches. A space
 * cleans its dense query by its own document frequencies, so the texts can differ; the same text is not
 * embedded again (an added shared space cost a second embedding of the same query: 5–60 ms).
 */
export function embedOnce(embedder: Embedder): Embedder {
  const done = new Map<string, Float32Array>();
  return {
    info: () => embedder.info(),
    embedDocuments: (texts) => embedder.embedDocuments(texts),
    tokenize: (text) => embedder.tokenize(text),
    async embedQueries(texts) {
      const missing = [...new Set(texts.filter((t) => !done.has(t)))];
      if (missing.length) (await embedder.embedQueries(missing)).forEach((v, i) => done.set(missing[i]!, v));
      return texts.map((t) => done.get(t)!);
    },
  };
}

/** A recalled memory as the prompt and the reply's card name it: a document chunk by its file and section. */
type Sourced = RetrievedMemory & {
  documentName?: string | null;
  section?: string | null;
  whose?: Whose | null;
  /** Who wrote it, relative to the person asking (writers.ts): what its packed line names. */
  source?: MemorySource | null;
};

function withSource<T extends RetrievedMemory & { documentName?: string | null }>(r: T): T & Sourced {
  return r.documentName ? { ...r, section: chunkSection(r.content) } : r;
}

function toRecalled(r: Sourced): RecalledMemory {
  return {
    id: r.id,
    content: r.content,
    timestamp: r.timestamp,
    kind: r.kind,
    matchType: r.matchType,
    importance: r.importance,
    pinned: r.pinned,
    scores: r.scores,
    moves: rankingMoves(r.moves),
    ...(r.documentName ? { documentName: r.documentName, section: r.section ?? null } : {}),
    ...(r.whose ? { whose: r.whose } : {}),
    ...(r.fact ? { fact: r.fact } : {}),
  };
}

/** The moves that changed a result's place; the confidence's features ("confidence: …") are Debug Search's detail. */
export function rankingMoves(moves: string[]): string[] {
  return moves.filter((m) => !m.startsWith("confidence:"));
}

/**
 * Pack the recalled memories under the budget and say which of them made it in: packMemories is greedy in
 * rank order, so a memory is in exactly when adding it to the prefix before it raises the count.
 */
export function packRecalled<T extends Sourced>(
  results: T[],
  topN: number,
  tokenBudget: number,
  opts: PackOptions & { facts?: TurnFacts } = {},
): { block: string; included: T[]; facts: KnownFact[] } {
  // "[What I know]" first (fact-block.ts), within a third of the budget: the facts the question matched on
  // their own evidence (fact-leg.ts), the facts of the results that qualify, then the profile (profile.ts)
  // within its own budget; the exchanges that back them get the rest. A fact whose result is then left out goes too.
  const leg = opts.facts?.leg ?? [];
  // Chosen by importance within its budget, then stated most relevant to the question first (what a reader
  // takes first, and what the block keeps when the third runs out).
  const strength = opts.facts?.strengths;
  const profile = withinTokens(
    (opts.facts?.profile ?? []).filter((p) => !leg.some((f) => f.id === p.id)),
    opts.facts?.profileTokens ?? 0,
    opts.tzOffsetMinutes,
  )
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (strength?.get(b.f.id) ?? 0) - (strength?.get(a.f.id) ?? 0) || a.i - b.i)
    .map(({ f }) => f);
  const candidates = (packed: T[]) => {
    const seen = new Set<string>();
    return [...leg, ...factsToPack(packed), ...profile].filter((f) => !seen.has(f.id) && seen.add(f.id));
  };
  const third = Math.floor(tokenBudget / 3);
  const room = factBlock(candidates(results.slice(0, topN)), third, opts.tzOffsetMinutes);
  // Which days carry the time is read once from the candidates, so each prefix packOnly tries labels alike.
  const packOpts = { ...opts, timeOnDays: opts.timeOnDays ?? sharedDays(results, topN, opts.tzOffsetMinutes) };
  const memories = packOnly(results, topN, tokenBudget - (room.block ? estimateTokens(room.block) + 1 : 0), packOpts);
  const facts = factBlock(candidates(memories.included), third, opts.tzOffsetMinutes);
  const used = new Set(facts.used.map((f) => f.id));
  const included = memories.included.map((m) => (m.fact && !used.has(m.fact.id) ? { ...m, fact: undefined } : m));
  return { block: [facts.block, memories.block].filter(Boolean).join("\n\n"), included, facts: facts.used };
}

/** Facts a turn may state beside its memories' (already filtered by the sharing rules). */
export interface TurnFacts {
  /** Current facts the question matched on their own evidence, best first. */
  leg: KnownFact[];
  /** The profile's facts, most important first; `profileTokens` of them are carried. */
  profile: KnownFact[];
  profileTokens: number;
  /** The question's strength for each current fact (retrieve.ts factStrengths): the profile's lines are stated by it. */
  strengths?: Map<string, number>;
}

/** The memories alone under a budget, and which of them made it in. */
function packOnly<T extends Sourced>(
  results: T[],
  topN: number,
  tokenBudget: number,
  opts: PackOptions,
): { block: string; included: T[] } {
  const { block } = packMemories(results, topN, tokenBudget, opts);
  const included: T[] = [];
  let before = 0;
  for (let i = 0; i < Math.min(results.length, topN); i++) {
    const used = packMemories(results.slice(0, i + 1), topN, tokenBudget, opts).used;
    if (used > before) included.push(results[i]!);
    before = used;
  }
  return { block, included };
}

export interface Recall {
  block: string;
  memories: RecalledMemory[];
  considered: number;
  queries: string[];
  ms: number;
  /** Retrieval failed (e.g. the embedding server is down): the reply goes on without memories. */
  error: string | null;
  /** The memories this recall counts as retrieved (promoteRecall). */
  promotable: string[];
  /** Every fact the block states ([What I know]): the facts leg's, the memories', the profile's. */
  facts: KnownFact[];
}

/** What a reply built on this recall was given (recorded with its exchange: docs/retrieval.md#provenance). */
export function provenanceOf(recall: Recall): Provenance {
  return { memories: recall.memories.map((m) => m.id), facts: recall.facts.map((f) => f.id) };
}

/**
 * A fact may go where every memory it came from may go (server/chat/memory-policy.ts): with `only: "pinned"`
 * every source must be pinned; a fact with no live source goes nowhere.
 */
export function factAllowed(sources: { pinned: boolean }[] | undefined, only: "all" | "pinned"): boolean {
  return Boolean(sources?.length) && (only === "all" || sources!.every((m) => m.pinned));
}

export const NO_RECALL: Recall = {
  block: "",
  memories: [],
  considered: 0,
  queries: [],
  ms: 0,
  error: null,
  promotable: [],
  facts: [],
};

/**
 * Retrieval for a prompt (docs/retrieval.md). `only: "pinned"` keeps pinned memories only (what a
 * provider may receive, server/chat/memory-policy.ts). The recalled memories are promoted unless
 * `promote: false` (then promoteRecall does it once the prompt is sure to be sent).
 */
export async function recallForPrompt(
  memo: MemoContext,
  input: {
    space: string;
    /**
     * Spaces shared with the person that were added to this conversation (server/memory/store/shares.ts
     * conversationSpaces): searched too, their results merged with the space's by confidence. A shared space
     * reaches a turn by no other path. With `only: "pinned"` (its owner's choice for the provider,
     * memory-policy.ts planAddedSpaces) only its pinned memories.
     */
    added?: (string | AddedSpace)[];
    query: string;
    context: string[];
    exclude?: (m: RetrievedMemory) => boolean;
    tzOffsetMinutes?: number;
    /** The turn's date (ISO; default now): what dates in the question are read against (an eval replays a past one). */
    at?: string;
  },
  opts: { only?: "all" | "pinned"; promote?: boolean; timer?: StageTimer } = {},
): Promise<Recall> {
  const t0 = performance.now();
  opts.timer?.start();
  try {
    const turnMemo: MemoContext = input.added?.length ? { ...memo, embedder: embedOnce(memo.embedder) } : memo;
    const one = (space: string) =>
      search(
        turnMemo,
        {
          query: input.query,
          space,
          context: input.context,
          promote: false,
          tzOffsetMinutes: input.tzOffsetMinutes,
          forPrompt: true,
          ...(input.at ? { at: input.at } : {}),
        },
        opts.timer,
      );
    const r = await one(input.space);
    const only = opts.only ?? "all";
    let results = r.results;
    // The facts leg's facts, each where its memories may go (the main space's rule, an added space's own).
    let leg = withSources(memo.db, r.factLeg).filter((f) => factAllowed(f.sources, only));
    for (const a of input.added ?? []) {
      const { space, only } = typeof a === "string" ? { space: a, only: "all" } : a;
      if (space === input.space) continue;
      // An added space that is empty (or no longer shared: missing) adds nothing; the turn goes on.
      const more = await one(space)
        .then((m) =>
          only === "pinned" || opts.only === "pinned"
            ? {
                ...m,
                results: m.results.filter((x) => x.pinned),
                factLeg: withSources(memo.db, m.factLeg).filter((f) => factAllowed(f.sources, "pinned")),
              }
            : { ...m, factLeg: withSources(memo.db, m.factLeg) },
        )
        .catch((e: unknown) => {
          if (e instanceof ServiceError && e.status === 404) return null;
          throw e;
        });
      // Confidence is calibrated per result (confidence.ts), so results of different spaces compare by it.
      if (more) {
        results = [...results, ...more.results].sort((a, b) => b.scores.confidence - a.scores.confidence);
        leg = [...leg, ...more.factLeg.filter((f) => factAllowed(f.sources, "all"))].sort(
          (a, b) => b.confidence - a.confidence,
        );
      }
    }
    const kept = input.exclude ? results.filter((m) => !input.exclude!(m)) : results;
    const allowed = opts.only === "pinned" ? kept.filter((m) => m.pinned) : kept;
    // Only results at or above the minimum confidence reach the prompt (none: "no memory used"), and only those count as recalled.
    const found = packable(allowed, r.settings.minConfidence).map(withSource);
    // The profile: the person's most important current facts, every turn, within its own budget (profile.ts).
    const ranked =
      r.settings.profileTokens > 0
        ? rankedProfile(memo.db, input.space).filter((f) => factAllowed(f.sources, only))
        : [];
    // Every fact the block may state says who it is by when that is not the person asking (writers.ts).
    const by = factWriters(memo.db, [
      ...leg.map((f) => f.id),
      ...ranked.map((f) => f.id),
      ...found.flatMap((m) => (m.fact ? [m.fact.id] : [])),
    ]);
    const written = <F extends KnownFact>(f: F): F => (by.has(f.id) ? { ...f, by: by.get(f.id)! } : f);
    leg = leg.map(written);
    const profile = ranked.map(written);
    const usable = found.map((m) => (m.fact ? { ...m, fact: written(m.fact) } : m));
    opts.timer?.mark("profile");
    const { block, included, facts } = packRecalled(usable, r.settings.topN, r.settings.tokenBudget, {
      speakers: r.settings.packSpeakers,
      assistantMaxChars: r.settings.assistantMaxChars,
      tzOffsetMinutes: input.tzOffsetMinutes,
      facts: { leg, profile, profileTokens: r.settings.profileTokens, strengths: r.factStrengths },
    });
    const recall: Recall = {
      block,
      memories: included.map(toRecalled),
      considered: allowed.length,
      queries: r.queries.map((q) => q.text),
      ms: ms(t0),
      error: null,
      // The top N that qualify count as recalled (the budget may still leave the last of them out).
      promotable: usable.slice(0, r.settings.topN).map((m) => m.id),
      facts,
    };
    if (opts.promote ?? true) promoteRecall(memo, recall);
    opts.timer?.mark("pack");
    return recall;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // An empty space (nothing stored yet) is not an error worth showing.
    if (e instanceof ServiceError && e.status === 404) return { ...NO_RECALL, ms: ms(t0) };
    console.warn(`[chat] memory recall failed, answering without memories: ${message}`);
    return { ...NO_RECALL, ms: ms(t0), error: `Memory recall failed: ${message}` };
  }
}

/** Count a recall into a prompt: retrieval_count +1 and importance promoted for what it found. */
export function promoteRecall(memo: MemoContext, recall: Recall): void {
  if (recall.promotable.length) recordRetrievals(memo.db, recall.promotable);
}
