import { dayIn, defaultOffsetMinutes } from "../../core/calendar";
import type { MatchType } from "./fuse";
import type { SpeakerSpan } from "../store/chunker";

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
}

/** A cheap token estimate (≈4 characters per token for English); the budget is a guard, not a tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

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
 * stored with the memory; content without them (a document) as it is.
 */
export function speakerBody(
  content: string,
  speakers: SpeakerSpan[] | null | undefined,
  assistantMaxChars: number,
): string {
  const lines = (speakers ?? []).flatMap((s) => {
    const words = content.slice(s.start, s.end).trim();
    if (s.role === "assistant") {
      const reply = trimAssistant(words.replace(/\s*\n\s*/g, " "), assistantMaxChars);
      return reply ? [`you replied: “${reply}”`] : [];
    }
    return words ? [`${s.name ?? "the user"} said: “${formatBody(words)}”`] : [];
  });
  return lines.length ? lines.join("\n  ") : formatBody(content);
}

/** One memory's entry; `body` is already formatted (formatBody). */
function entry(m: PackItem, body: string, offset?: number): string {
  const day = (iso: string) => dayIn(iso, offset ?? defaultOffsetMinutes(Date.parse(iso)));
  const edited = m.updatedAt && m.updatedAt > m.timestamp ? ` (edited ${day(m.updatedAt)})` : "";
  const date = day(m.timestamp) + edited;
  const from = m.documentName ? ` (from ${m.documentName}${m.section ? `, section “${m.section}”` : ""})` : "";
  return `- ${date}${from}: ${body}\n  (match: ${m.matchType}, importance: ${m.importance})`;
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
  for (const m of items.slice(0, topN)) {
    const body = opts.speakers
      ? speakerBody(m.content, m.speakers, opts.assistantMaxChars ?? 400)
      : formatBody(m.content);
    let e = entry(m, body, opts.tzOffsetMinutes);
    let t = estimateTokens(e) + 1;
    if (tokens + t > tokenBudget) {
      if (lines.length > 0) continue;
      const room = Math.max(0, (tokenBudget - tokens - estimateTokens(entry(m, "", opts.tzOffsetMinutes)) - 2) * 4);
      if (room < 40) continue; // too little room for a useful cut: skip it, a later one may fit
      // Cut the formatted body (its indentation counts against the budget too), never mid-indent.
      e = entry(m, `${body.slice(0, room).trimEnd()}…`, opts.tzOffsetMinutes);
      t = estimateTokens(e) + 1;
    }
    lines.push(e);
    tokens += t;
  }
  return lines.length ? { block: [header, ...lines].join("\n"), used: lines.length } : { block: "", used: 0 };
}
