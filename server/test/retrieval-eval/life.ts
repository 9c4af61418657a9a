import { GENERIC_FILLERS, personalFillers } from "./fillers";
import { assistantSaid, inferences, preferences, UNANSWERABLE, updates } from "./life-items";
import { lifeFillers } from "./life-fillers";
import { followOns } from "./life-followons";
import { makePersona } from "./persona";
import { elaborate, elaborateFiller } from "./replies";
import { createRng } from "./rng";
import { TOPICS, type Exchange } from "./topics";
import { memoryText, type EvalMemory } from "./dataset";
import { chatParts } from "../../memory/store/chunker";

/**
 * The long-history test set of `npm run eval:retrieval`: ONE person's year of chat with an assistant,
 * 1,000+ exchanges in one space, and every question searched against all of it.
 *
 * Two halves with nothing in common but the history: topics of the bank alternate between them (even
 * index: tuning, odd: reporting), and so do the items of life-items.ts. Defaults are chosen on the
 * tuning half's questions; figures are reported on the reporting half's.
 *
 * Question types: single-hop (a fact in one exchange), multi-hop (2 exchanges sessions apart),
 * temporal ("in May", "last week", "a few days ago", against the question's date), knowledge update
 * (a fact changed later: gold is the newer exchange), assistant-said ("what did you suggest…"),
 * preference, inference (the answer follows from a fact the question does not name), and
 * unanswerable (gold is empty: nothing should be packed).
 */

export type LifeType =
  | "single-hop"
  | "multi-hop"
  | "temporal"
  | "update"
  | "assistant-said"
  | "preference"
  | "inference"
  | "unanswerable";
export const LIFE_TYPES: LifeType[] = [
  "single-hop",
  "multi-hop",
  "temporal",
  "update",
  "assistant-said",
  "preference",
  "inference",
  "unanswerable",
];
export type Half = "tuning" | "reporting";

export interface LifeQuestion {
  id: string;
  half: Half;
  type: LifeType;
  text: string;
  /** Earlier user messages of the asking chat (follow-ups), oldest first. */
  context: string[];
  gold: string[];
  /** Knowledge updates: the stale exchange the gold replaced. */
  stale?: string;
  /** The turn's date, what relative dates resolve against. */
  at: string;
  /** Single-hop whose answer is a short reply naming nothing of the question (life-followons.ts). */
  shortReply?: boolean;
}

export interface LifeDataset {
  seed: number | string;
  space: string;
  persona: string;
  memories: EvalMemory[];
  questions: LifeQuestion[];
}

export const LIFE_SEED = 20250107;
export const LIFE_SPACE = "eval-life";
const START = Date.UTC(2024, 0, 2);
const SPAN_DAYS = 355;
const ASKED_AT = "2025-01-06T10:00:00.000Z";
const DAY = 86_400_000;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** How each topic is named in a dated question ("What did I tell you about {label} in May?"). */
const LABEL: Record<string, string> = {
  dog: "our dog",
  cat: "our cat",
  pottery: "the pottery course",
  climbing: "climbing",
  guitar: "the guitar",
  running: "my race training",
  garden: "the vegetable garden",
  bookclub: "book club",
  wedding: "the wedding",
  parent: "my parent's operation",
  kid: "my kid's team",
  anniversary: "our anniversary",
  "friend-birthday": "the birthday surprise",
  job: "the new job",
  project: "the project deadline",
  conference: "my conference talk",
  trip: "our trip",
  hike: "the hike",
  passport: "my passport",
  allergy: "my allergy",
  restaurant: "that restaurant",
  cooking: "my cooking",
  vegetarian: "going vegetarian",
  knee: "my knee",
  sleep: "my sleep",
  dentist: "the dentist",
  moving: "the new apartment",
  car: "the car",
  language: "learning the language",
  saving: "our savings",
  concert: "the concert",
  volunteering: "volunteering",
};

/** Events a question dates a span from ("the day after I bought the guitar"), by the fact that tells of them. */
type Phrase = (label: string, extra: string) => string;
/**
 * The composed questions' phrasings, two per half: the reporting half's are never seen while tuning
 * (README.md). The tuning half's are the ones both halves shared before they were split.
 */
const PHRASES: Record<"recap" | "month" | "relative" | "event", Record<Half, [Phrase, Phrase]>> = {
  recap: {
    tuning: [
      (l) => `Give me the whole story of ${l}: how did it start and how did it turn out?`,
      (l) => `Recap ${l} for me, from the beginning to the latest news.`,
    ],
    reporting: [
      (l) => `Catch me up on ${l}: where did it begin and where does it stand now?`,
      (l) => `Summarise everything about ${l}, first mention to last.`,
    ],
  },
  month: {
    tuning: [
      (l, m) => `What did I tell you about ${l} in ${m}?`,
      (l, m) => `Back in ${m}, what was going on with ${l}?`,
    ],
    reporting: [(l, m) => `What was new with ${l} in ${m}?`, (l, m) => `In ${m}, what did we discuss about ${l}?`],
  },
  relative: {
    tuning: [(l, w) => `What did I mention about ${l} ${w}?`, (l, w) => `Remind me what I said ${w} about ${l}.`],
    reporting: [(l, w) => `What was the news on ${l} ${w}?`, (l, w) => `What did we say about ${l} ${w}?`],
  },
  event: {
    tuning: [(_, e) => `What else did we talk about the day after ${e}?`, (_, e) => `What came up the day after ${e}?`],
    reporting: [
      (_, e) => `What did we discuss the day after ${e}?`,
      (_, e) => `Anything I brought up the day after ${e}?`,
    ],
  },
};

const EVENTS: Record<string, string> = {
  "allergy:diagnosis": "the allergist confirmed my allergy",
  "anniversary:plan": "I booked the table for our anniversary",
  "bookclub:join": "I joined the book club",
  "cat:adopt": "we brought the kitten home",
  "dentist:rootcanal": "the dentist said I need a root canal",
  "dog:adopt": "we adopted the dog from the shelter",
  "guitar:buy": "I bought the secondhand guitar",
  "hike:gear": "I bought the tent for the hike",
  "job:firstweek": "my first week at the new job",
  "job:review": "my six-month review",
  "kid:school": "the parent-teacher meeting",
  "kid:sport": "my son joined the soccer team",
  "passport:renew": "I sent off the passport renewal",
  "pottery:start": "I signed up for the wheel-throwing course",
  "project:launch": "the project launched",
  "restaurant:fav": "I found my new favourite place to eat",
  "sleep:insomnia": "I told you I keep waking up at 3am",
  "trip:book": "I booked the flights",
  "trip:highlight": "we got back from the trip",
  "friend-birthday:plan": "I started organising the surprise escape room",
};

interface Slot {
  e: Exchange;
  key: string;
  t: number;
  /** The next slot is this one's reply and must land right after it, in the same session. */
  heldWithNext?: boolean;
}

export interface LifeOptions {
  seed?: number | string;
  /** Generated everyday fillers (default: enough for ~1,100 memories). */
  fillers?: number;
}

export function generateLife(opts: LifeOptions = {}): LifeDataset {
  const seed = opts.seed ?? LIFE_SEED;
  const r = createRng(seed);
  const persona = makePersona(r.fork("persona"));
  const slots: Slot[] = [];
  const qs: Omit<LifeQuestion, "id">[] = [];
  const half = (i: number): Half => (i % 2 === 0 ? "tuning" : "reporting");
  const topicFacts: { topic: string; half: Half; keys: string[] }[] = [];

  TOPICS.forEach((topic, ti) => {
    const tr = r.fork(`topic:${topic.id}`);
    const arc = topic.build(tr, persona);
    const h = half(ti);
    const times = arc.facts.map(() => tr.next()).sort((a, b) => a - b);
    const keys = arc.facts.map((f) => `${topic.id}:${f.key}`);
    arc.facts.forEach((f, i) =>
      slots.push({
        e: { user: f.user, assistant: elaborate(tr, topic.category, f.assistant) },
        key: keys[i]!,
        t: times[i]!,
      }),
    );
    arc.distractors.forEach((d, i) =>
      slots.push({
        e: { user: d.user, assistant: elaborate(tr, topic.category, d.assistant) },
        key: `${topic.id}:d${i}`,
        t: tr.next(),
      }),
    );
    topicFacts.push({ topic: topic.id, half: h, keys });
    for (const q of arc.questions) {
      qs.push({
        half: h,
        type: q.gold.length > 1 ? "multi-hop" : "single-hop",
        text: q.text,
        context: q.type === "followup" && q.lead ? q.lead.slice(-3) : [],
        gold: q.gold.map((g) => `${topic.id}:${g}`),
        at: ASKED_AT,
      });
    }
    if (keys.length >= 2) {
      qs.push({
        half: h,
        type: "multi-hop",
        text: tr.pick(PHRASES.recap[h])(LABEL[topic.id]!, ""),
        context: [],
        gold: [keys[0]!, keys[keys.length - 1]!],
        at: ASKED_AT,
      });
    }
  });

  const ir = r.fork("items");
  updates(persona).forEach((u, i) => {
    slots.push({ e: u.old, key: `update${i}:old`, t: ir.next() * 0.45 });
    slots.push({ e: u.new, key: `update${i}:new`, t: 0.55 + ir.next() * 0.4 });
    qs.push({
      half: half(i),
      type: "update",
      text: u.q,
      context: [],
      gold: [`update${i}:new`],
      stale: `update${i}:old`,
      at: ASKED_AT,
    });
  });
  const singles: [LifeType, ReturnType<typeof assistantSaid>][] = [
    ["assistant-said", assistantSaid()],
    ["preference", preferences(persona)],
    ["inference", inferences(persona)],
  ];
  for (const [type, items] of singles) {
    items.forEach((it, i) => {
      slots.push({ e: it.e, key: `${type}${i}`, t: ir.next() });
      qs.push({ half: half(i), type, text: it.q, context: [], gold: [`${type}${i}`], at: ASKED_AT });
    });
  }
  // Short replies in the next exchange of the session ("Sage green on three walls…"): single-hop facts
  // whose subject is named only in the exchange before them.
  const fo = r.fork("follow-ons");
  followOns(persona).forEach((it, i) => {
    const t = fo.next();
    slots.push({ e: it.lead, key: `followon${i}:lead`, t, heldWithNext: true });
    slots.push({ e: it.reply, key: `followon${i}`, t: t + 1e-9 });
    qs.push({
      half: half(i),
      type: "single-hop",
      text: it.q,
      context: [],
      gold: [`followon${i}`],
      at: ASKED_AT,
      shortReply: true,
    });
  });
  UNANSWERABLE.forEach((text, i) =>
    qs.push({ half: half(i), type: "unanswerable", text, context: [], gold: [], at: ASKED_AT }),
  );

  // Everyday filler: the bulk of the year.
  const fr = r.fork("fillers");
  const everyday = [...personalFillers(persona), ...GENERIC_FILLERS];
  const target = opts.fillers ?? Math.max(0, 1100 - slots.length - everyday.length);
  for (const [i, e] of [...everyday, ...lifeFillers(fr, target)].entries()) {
    slots.push({ e: { user: e.user, assistant: elaborateFiller(fr, e.assistant) }, key: `x${i + 1}`, t: fr.next() });
  }
  if (opts.fillers !== undefined)
    slots.splice(
      0,
      slots.length,
      ...slots.filter((s) => !s.key.startsWith("x") || Number(s.key.slice(1)) <= opts.fillers!),
    );

  // Timeline: sessions of 1–6 exchanges over a year, minutes apart within a session.
  slots.sort((a, b) => a.t - b.t);
  const tl = r.fork("timeline");
  const memories: EvalMemory[] = [];
  let lastDay = -1;
  for (let i = 0; i < slots.length; ) {
    let size = tl.int(1, 6);
    if (slots[i + size - 1]?.heldWithNext) size += 1;
    let day = Math.floor(slots[i]!.t * SPAN_DAYS);
    if (day < lastDay) day = lastDay;
    lastDay = day;
    let at = START + day * DAY + tl.int(7, 20) * 3_600_000 + tl.int(0, 59) * 60_000;
    for (const s of slots.slice(i, i + size)) {
      memories.push({
        key: s.key,
        conv: "life",
        timestamp: new Date(at).toISOString(),
        text: memoryText(s.e),
        said: chatParts(s.e.user, s.e.assistant),
        topic: s.key.split(":")[0] ?? null,
        role: s.key.startsWith("x") ? "filler" : "fact",
      });
      at += tl.int(2, 9) * 60_000;
    }
    i += size;
  }
  const when = new Map(memories.map((m) => [m.key, m.timestamp]));

  // Temporal questions: a topic's fact named by its month, or by a relative date asked some days later.
  const qr = r.fork("temporal");
  for (const { topic, half: h, keys } of topicFacts) {
    const f = qr.pick(keys);
    const t = Date.parse(when.get(f)!);
    const month = new Date(t).getUTCMonth();
    const sameMonth = keys.filter((k) => new Date(when.get(k)!).getUTCMonth() === month);
    qs.push({
      half: h,
      type: "temporal",
      text: qr.pick(PHRASES.month[h])(LABEL[topic]!, MONTHS[month]!),
      context: [],
      gold: sameMonth,
      at: ASKED_AT,
    });
    const rel = qr.pick([
      { words: "last week", after: 7, span: 3 },
      { words: "a few days ago", after: 3, span: 2 },
      { words: "yesterday", after: 1, span: 1 },
    ]);
    const near = keys.filter((k) => Math.abs(Date.parse(when.get(k)!) - t) <= rel.span * DAY);
    qs.push({
      half: h,
      type: "temporal",
      text: qr.pick(PHRASES.relative[h])(LABEL[topic]!, rel.words),
      context: [],
      gold: near,
      at: new Date(t + rel.after * DAY + 2 * 3_600_000).toISOString(),
    });
  }

  // Temporal, relative to an event: "What else did we talk about the day after I bought the guitar?" —
  // gold is what was said on the next calendar day (the event itself and the rest of its day are not).
  for (const [key, phrase] of Object.entries(EVENTS)) {
    const at = when.get(key);
    if (!at) continue;
    const next = new Date(Date.parse(at.slice(0, 10)) + DAY).toISOString().slice(0, 10);
    const gold = memories.filter((m) => m.timestamp.startsWith(next)).map((m) => m.key);
    if (gold.length === 0 || gold.length > 6) continue;
    const h = topicFacts.find((t) => t.keys.includes(key))!.half;
    qs.push({
      half: h,
      type: "temporal",
      text: qr.pick(PHRASES.event[h])("", phrase),
      context: [],
      gold,
      at: ASKED_AT,
    });
  }

  const questions = qs.map((q, i) => ({ ...q, id: `q${String(i + 1).padStart(3, "0")}` }));
  for (const q of questions)
    for (const g of q.gold) if (!when.has(g)) throw new Error(`gold ${g} of ${q.id} is not a memory`);
  return { seed, space: LIFE_SPACE, persona: persona.name, memories, questions };
}
