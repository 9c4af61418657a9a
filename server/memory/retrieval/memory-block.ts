import { dayIn, defaultOffsetMinutes, timeIn } from "../../core/calendar";
import type { MatchType } from "./union-fusion";
import { estimateTokens } from "./token-estimate";
import type { SpeakerSpan } from "../store/chunker";
import type { MemorySource } from "./writers";

export interface PackItem {
  content: string;
  timestamp: string;
  /** A later edit is shown beside the date, so "prefer the newer fact" sees it. */
  updatedAt?: string | null;
  matchType: MatchType;
  importance: number;
  /** A document chunk's file name (and the section heading it sits under): named in the block. */
  documentName?: string | null;
  section?: string | null;
  /** Who said which part (stored with the memory); null or absent: not known, packed as it is. */
  speakers?: SpeakerSpan[] | null;
  /** Who wrote it, relative to the person asking (writers.ts); absent: the asker's own. */
  source?: MemorySource | null;
}

/**
 * What the labels of the memory blocks mean: said ONCE in the system prompt before the blocks (the chat
 * turn's and the OpenAI-compatible API's), so each line can name its writer briefly.
 */
export const LABELS_LEGEND =
  "Each recalled line names who wrote it. “The user” is the person you are talking to now; anyone else is named " +
  "(“Ana said”, “Ana wrote”: Ana's words, not the user's, e.g. from Ana's shared space). “You replied” is an earlier " +
  "answer of yours, to the user or “to Ana” (“restating what you recalled then” when it mostly repeated what you were given, not anything new); " +
  "“from <file>” is a document's text, “from … history” an imported chat history. In [What I know], “Ana said:” marks " +
  "a fact learned from Ana's words; unmarked facts are the user's own. Dates are the user's days, with the time of day " +
  "where two recalled lines share a day.";

/**
 * Content as it appears in the block: blank lines dropped, continuation lines indented under the bullet.
 * Line breaks and each line's indentation beyond the common one are kept (code stays code).
 */
export function formatBody(content: string): string {
  const lines = content
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.length > 0);
  const common = lines.reduce((n, l) => Math.min(n, /^[ \t]*/.exec(l)![0].length), Number.POSITIVE_INFINITY);
  return lines.map((l) => l.slice(Number.isFinite(common) ? common : 0)).join("\n  ");
}

export interface PackOptions {
  /** Keep who said what: a chat exchange's user words and assistant reply are labelled apart. */
  speakers?: boolean;
  /** Longest assistant reply kept, cut at a sentence end. */
  assistantMaxChars?: number;
  /** Dates are the person's days (minutes east of UTC); default this server's zone. */
  tzOffsetMinutes?: number;
  /**
   * The days (in the person's zone) whose lines carry their time of day too: days more than one candidate
   * falls on (sharedDays), so two statements of one day say which came later. Default: from the items packed.
   */
  timeOnDays?: Set<string>;
}

const dayOf = (iso: string, offset?: number) => dayIn(iso, offset ?? defaultOffsetMinutes(Date.parse(iso)));

/** The days more than one of the first topN items falls on (PackOptions.timeOnDays). */
export function sharedDays(items: Pick<PackItem, "timestamp">[], topN: number, offset?: number): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const m of items.slice(0, topN)) {
    const d = dayOf(m.timestamp, offset);
    if (seen.has(d)) shared.add(d);
    seen.add(d);
  }
  return shared;
}

const sentences = (t: string) =>
  t
    .match(/[^.!?]+[.!?]+["')\]]*|[^.!?]+$/g)
    ?.map((x) => x.trim())
    .filter(Boolean) ?? [];

/** An assistant reply cut at a sentence end within maxChars. */
export function trimAssistant(text: string, maxChars: number): string {
  let out = "";
  for (const x of sentences(text)) {
    if (out && out.length + 1 + x.length > maxChars) break;
    out = out ? `${out} ${x}` : x;
  }
  return out.length > maxChars ? `${out.slice(0, maxChars).trimEnd()}…` : out;
}

/**
 * Each stored speaker's words on a labelled line (the reply cut at a sentence end), read from the spans
 * stored with the memory, each named relative to the person asking (writers.ts): "the user" is them, anyone
 * else by name, "you" the assistant. Content without spans (a note, a document) as it is — another person's
 * note under their name.
 */
export function speakerBody(
  content: string,
  speakers: SpeakerSpan[] | null | undefined,
  assistantMaxChars: number,
  source?: MemorySource | null,
): string {
  // A reply answered whoever spoke before it: another person's exchange says so ("you replied to Marit").
  let askedBy: string | null = null;
  const lines = (speakers ?? []).flatMap((s) => {
    const words = content.slice(s.start, s.end).trim();
    if (s.role === "assistant") {
      const reply = trimAssistant(words.replace(/\s*\n\s*/g, " "), assistantMaxChars);
      const to = askedBy ? ` to ${askedBy}` : "";
      const how = source?.restated ? `you replied${to}, restating what you recalled then` : `you replied${to}`;
      return reply ? [`${how}: “${reply}”`] : [];
    }
    askedBy = s.name ?? source?.writer ?? null;
    return words ? [`${askedBy ?? "the user"} said: “${formatBody(words)}”`] : [];
  });
  if (lines.length) return lines.join("\n  ");
  return source?.writer ? `${source.writer} wrote: “${formatBody(content)}”` : formatBody(content);
}

/** Where a memory came from, beside its date: a document, another person's space, an imported history. */
function origin(m: PackItem): string {
  const s = m.source;
  const parts = [
    m.documentName ? `from ${m.documentName}${m.section ? `, section “${m.section}”` : ""}` : "",
    s?.imported ? `from ${s.space ? `${s.space.owner}'s` : "the user's"} ${s.imported} history` : "",
    s?.space ? `in ${s.space.owner}'s shared space “${s.space.name}”` : "",
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** One memory's entry; `body` is already formatted (formatBody). */
function entry(m: PackItem, body: string, offset?: number, timeOnDays?: Set<string>): string {
  const day = (iso: string) => dayOf(iso, offset);
  const edited = m.updatedAt && m.updatedAt > m.timestamp ? ` (edited ${day(m.updatedAt)})` : "";
  const d = day(m.timestamp);
  const time = timeOnDays?.has(d)
    ? ` ${timeIn(m.timestamp, offset ?? defaultOffsetMinutes(Date.parse(m.timestamp)))}`
    : "";
  return `- ${d}${time}${edited}${origin(m)}: ${body}\n  (match: ${m.matchType}, importance: ${m.importance})`;
}

/** The line a memory is packed as (without a budget's cut): what Debug Search shows beside a result. */
export function packedLine(m: PackItem, opts: PackOptions = {}): string {
  return entry(m, bodyWith(m, opts), opts.tzOffsetMinutes, opts.timeOnDays);
}

/** A memory's body without speaker lines: another person's words still under their name (a document's are its own). */
function bodyOf(m: PackItem): string {
  const writer = m.documentName ? null : m.source?.writer;
  return writer ? `${writer} wrote: “${formatBody(m.content)}”` : formatBody(m.content);
}

/** A memory's body: its speakers' lines with `speakers` (when it has any), else bodyOf. */
function bodyWith(m: PackItem, opts: PackOptions): string {
  return opts.speakers && m.speakers?.length
    ? speakerBody(m.content, m.speakers, opts.assistantMaxChars ?? 400, m.source)
    : bodyOf(m);
}

/**
 * The [Relevant Memories] block (docs/retrieval.md#packing): at most topN memories, best first, within a
 * token budget; one that does not fit is skipped, the first cut (or skipped when too little room is left).
 */
export function packMemories(
  items: PackItem[],
  topN: number,
  tokenBudget: number,
  opts: PackOptions = {},
): { block: string; used: number } {
  const header = "[Relevant Memories]";
  let tokens = estimateTokens(header);
  const lines: string[] = [];
  const timeOnDays = opts.timeOnDays ?? sharedDays(items, topN, opts.tzOffsetMinutes);
  const at = (m: PackItem, body: string) => entry(m, body, opts.tzOffsetMinutes, timeOnDays);
  for (const m of items.slice(0, topN)) {
    const body = bodyWith(m, opts);
    let e = at(m, body);
    let t = estimateTokens(e) + 1;
    if (tokens + t > tokenBudget) {
      if (lines.length > 0) continue;
      const room = Math.max(0, (tokenBudget - tokens - estimateTokens(at(m, "")) - 2) * 4);
      if (room < 40) continue; // too little room for a useful cut: skip it, a later one may fit
      // Cut the formatted body (its indentation counts against the budget too), never mid-indent.
      e = at(m, `${body.slice(0, room).trimEnd()}…`);
      t = estimateTokens(e) + 1;
    }
    lines.push(e);
    tokens += t;
  }
  return lines.length ? { block: [header, ...lines].join("\n"), used: lines.length } : { block: "", used: 0 };
}
