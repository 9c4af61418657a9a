/**
 * LoCoMo (../shared/eval-data/README.md): the public long-conversation benchmark retrieval is developed
 * on. The pure parts of its eval: the file's shape, one memory per exchange, evidence ids with the file's
 * quirks, evidence recall@k, and the tuning/reporting halves. The data itself is never in the repository.
 */
import fs from "node:fs";
import path from "node:path";
import { saidText, type Said } from "../../memory/store/chunker";

/** Where the data lives next to a checkout (the eval's and the test slice's default). */
export const DEFAULT_LOCOMO_PATH = path.resolve(process.cwd(), "..", "shared", "eval-data", "locomo10.json");

export const TUNING = ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"] as const;
export const REPORTING = ["conv-44", "conv-47", "conv-48", "conv-49", "conv-50"] as const;
export type Half = "tuning" | "reporting";
export const halfOf = (sampleId: string): Half | null =>
  (TUNING as readonly string[]).includes(sampleId)
    ? "tuning"
    : (REPORTING as readonly string[]).includes(sampleId)
      ? "reporting"
      : null;

/** Category ids as the official evaluation and the paper use them; 5 (adversarial) has no gold. */
export const CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; evidence?: unknown; category: number }[];
  /** Annotators' statements per session and speaker, each with the turn(s) it came from. */
  observation?: Record<string, Record<string, [string, unknown][]>>;
}

/**
 * One annotated observation (the file's `observation` field): what an extractor as good as the annotators
 * would learn from the conversation, used ONLY as facts fed through the product's fact write path to
 * measure what facts are worth as recall keys (`npm run eval:locomo -- --facts`). Never indexed otherwise.
 */
export interface Observation {
  text: string;
  /** The turns it came from ("D<s>:<t>"), existing ones only. */
  turns: string[];
  /** Its session's date (ISO): the fact's validFrom. */
  date: string;
}

export interface Exchange {
  /** "D<s>:<t>" of each turn it holds (one or two). */
  turns: string[];
  text: string;
  /** Each turn's speaker (the file's `speaker` field) and words: stored as the memory's speakers. */
  said: Said[];
  /** The session's date, ISO (the file has no time zone: read as UTC). */
  timestamp: string;
}

export interface Question {
  question: string;
  category: number;
  /** Existing evidence ids, normalised to "D<s>:<t>". */
  evidence: string[];
}

export interface Conversation {
  id: string;
  half: Half | null;
  exchanges: Exchange[];
  questions: Question[];
  /** The last session's date: what the questions are asked as of. */
  lastDate: string;
  observations: Observation[];
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00.000Z". */
export function parseSessionDate(s: string): string {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(s);
  if (!m) throw new Error(`unreadable session date: ${JSON.stringify(s)}`);
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) throw new Error(`unreadable month in session date: ${JSON.stringify(s)}`);
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** Every evidence id in a raw evidence entry: `D:?<s>:0*<t>`, so "D8:6; D9:17" gives two and "D30:05" is D30:5. */
export function evidenceIds(raw: unknown): string[] {
  const out: string[] = [];
  for (const e of Array.isArray(raw) ? raw : [raw]) {
    if (typeof e !== "string") continue;
    for (const m of e.matchAll(/D:?(\d+):0*(\d+)/g)) out.push(`D${Number(m[1])}:${Number(m[2])}`);
  }
  return [...new Set(out)];
}

const turnSaid = (t: RawTurn): Said => ({
  name: t.speaker,
  text: `${t.text.trim()}${t.blip_caption ? ` [shares a photo of ${t.blip_caption.trim()}]` : ""}`,
});

/** One sample as exchanges (turns 1+2, 3+4, … of each session) and its questions with existing evidence. */
export function readConversation(raw: RawSample): Conversation {
  const conv = raw.conversation;
  const sessions = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const exchanges: Exchange[] = [];
  const known = new Set<string>();
  let lastDate = "";
  for (const n of sessions) {
    const turns = (conv[`session_${n}`] as RawTurn[] | undefined) ?? [];
    if (turns.length === 0) continue;
    const timestamp = parseSessionDate(String(conv[`session_${n}_date_time`]));
    if (timestamp > lastDate) lastDate = timestamp;
    for (let i = 0; i < turns.length; i += 2) {
      const pair = turns.slice(i, i + 2);
      const ids = pair.flatMap((t) => evidenceIds(t.dia_id));
      for (const id of ids) known.add(id);
      const said = pair.map(turnSaid);
      exchanges.push({ turns: ids, text: saidText(said), said, timestamp });
    }
  }
  const questions: Question[] = [];
  for (const q of raw.qa) {
    const evidence = evidenceIds(q.evidence).filter((id) => known.has(id));
    if (evidence.length === 0 || !CATEGORIES[q.category]) continue;
    questions.push({ question: String(q.question), category: q.category, evidence });
  }
  const observations: Observation[] = [];
  for (const [key, bySpeaker] of Object.entries(raw.observation ?? {})) {
    const n = /^session_(\d+)_observation$/.exec(key)?.[1];
    const when = n ? conv[`session_${n}_date_time`] : undefined;
    if (!when) continue;
    const date = parseSessionDate(String(when));
    for (const list of Object.values(bySpeaker))
      for (const [text, ids] of list) {
        const turns = evidenceIds(ids).filter((id) => known.has(id));
        if (typeof text === "string" && text.trim() && turns.length)
          observations.push({ text: text.trim(), turns, date });
      }
  }
  return { id: raw.sample_id, half: halfOf(raw.sample_id), exchanges, questions, lastDate, observations };
}

/** The benchmark's conversations, or null when the file is absent. Bad content is a clear error. */
export function loadLocomo(file: string): Conversation[] | null {
  if (!fs.existsSync(file)) return null;
  const data = JSON.parse(fs.readFileSync(file, "utf8")) as RawSample[];
  if (!Array.isArray(data)) throw new Error(`${file}: expected a JSON array of LoCoMo samples`);
  return data.map(readConversation);
}

/** Evidence recall@k: the share of evidence ids covered by the first k exchanges (an exchange covers its turns). */
export function recallAt(evidence: string[], ranked: string[][], k: number): number {
  if (evidence.length === 0) throw new Error("recall of a question without evidence");
  const covered = new Set(ranked.slice(0, k).flat());
  return evidence.filter((e) => covered.has(e)).length / evidence.length;
}

export interface Row {
  half: Half | null;
  category: number;
  values: Record<string, number>;
}

/** Mean of each value per half and per category (plus "all"), rounded to 3 places. */
export function summarise(rows: Row[]): Record<string, Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, Record<string, number>>> = {};
  for (const half of ["tuning", "reporting"] as const) {
    const inHalf = rows.filter((r) => r.half === half);
    const groups: [string, Row[]][] = [
      ["all", inHalf],
      ...Object.entries(CATEGORIES).map(([c, name]): [string, Row[]] => [
        name,
        inHalf.filter((r) => r.category === Number(c)),
      ]),
    ];
    out[half] = {};
    for (const [name, rs] of groups) {
      const keys = [...new Set(rs.flatMap((r) => Object.keys(r.values)))];
      out[half]![name] = Object.fromEntries(
        keys.map((k) => [k, round(rs.reduce((s, r) => s + (r.values[k] ?? 0), 0) / Math.max(1, rs.length))]),
      );
      out[half]![name]!.n = rs.length;
    }
  }
  return out;
}

export const round = (x: number) => Math.round(x * 1000) / 1000;
