import { stemmer } from "stemmer";
import { queryWords } from "../../memory/retrieval/keyword-search";
import { STOPWORDS } from "../../memory/retrieval/stopwords";
import type { Said } from "../../memory/store/chunker";
import { GENERIC_FILLERS, personalFillers } from "./fillers";
import { makePersona, type Persona } from "./persona";
import { elaborate, elaborateFiller } from "./replies";
import { createRng, type Rng } from "./rng";
import { TOPICS, type Category, type Exchange, type QuestionType, type Topic } from "./topics";

/**
 * Deterministic retrieval test set (docs/architecture.md#a-chat-turn, NOTES-stack "Retrieval quality with the offline model").
 *
 * Each conversation is one persona chatting with an assistant over several months: sessions of a few
 * exchanges each, timestamped, mixing the persona's life events (pets, hobbies, family, work, travel, food,
 * health, plans), topic-adjacent distractors and everyday filler. Every exchange becomes ONE memory,
 * "User: …\nAssistant: …", in a space of its own per conversation (`eval-c01`, …): a Memo space is one
 * person's memory, retrieval never crosses spaces, and per-person facts ("what's my dog called?") would
 * be ambiguous in a shared space. The keyword leg's document frequencies are store-wide, as in the app.
 *
 * Questions are asked later in "query chats": runs of 1–4 user messages. A question's `context` is the
 * earlier user messages of its chat (what the app passes as conversation context): for follow-ups, the
 * message(s) that set the topic; for the others, whatever was asked just before, often another topic.
 */

export interface EvalMemory {
  /** Stable id in the test set: `<conv>:<topic>:<fact>` for facts, `<conv>:x<n>` otherwise. */
  key: string;
  conv: string;
  timestamp: string;
  text: string;
  /** Who said which part, stored as the memory's speakers (as chat stores an exchange). */
  said?: Said[];
  topic: string | null;
  role: "fact" | "distractor" | "filler";
}

export interface EvalQuestion {
  id: string;
  conv: string;
  space: string;
  text: string;
  /** Earlier user messages of the asking chat, oldest first (at most 3). */
  context: string[];
  /** Memory keys holding the answer. */
  gold: string[];
  type: QuestionType;
  topic: string;
  category: Category;
  /** Long questions: is the topic in the first 5 words (the anchor query)? */
  anchorFront?: boolean;
  words: number;
  /** Distinct non-stopword stems shared with the gold memories (diagnostic: 0 = no keyword overlap). */
  overlap: number;
}

export interface EvalConversation {
  id: string;
  space: string;
  persona: string;
  memories: EvalMemory[];
}

export interface EvalDataset {
  seed: number | string;
  conversations: EvalConversation[];
  questions: EvalQuestion[];
  /**
   * Questions about things the persona never talked about (gold is empty): nothing should be recalled.
   * They measure what the quality filter is for (how much unrelated text reaches the prompt), which
   * recall cannot show.
   */
  unanswerable: EvalQuestion[];
}

export interface GenerateOptions {
  seed?: number | string;
  conversations?: number;
}

export const DEFAULT_SEED = 20240615;
export const DEFAULT_CONVERSATIONS = 16;

const PETS = new Set(["dog", "cat"]);

export function memoryText(e: Exchange): string {
  return `User: ${e.user}\nAssistant: ${e.assistant}`;
}

const stems = (text: string) =>
  new Set(
    queryWords(text)
      .filter((w) => !STOPWORDS.has(w) && w.length > 1 && w !== "user" && w !== "assistant")
      .map((w) => stemmer(w)),
  );

/** Content-word stems (stopwords and the speaker labels aside) that two texts share. */
export function sharedStems(a: string, b: string): string[] {
  const sb = stems(b);
  return [...stems(a)].filter((s) => sb.has(s));
}

function pickTopics(r: Rng): Topic[] {
  const pet = r.pick(TOPICS.filter((t) => PETS.has(t.id)));
  const rest = r.sample(
    TOPICS.filter((t) => !PETS.has(t.id)),
    r.int(11, 13),
  );
  return r.chance(0.85) ? [pet, ...rest] : rest;
}

function buildConversation(
  r: Rng,
  index: number,
): { conv: EvalConversation; questions: EvalQuestion[]; unanswerable: EvalQuestion[]; persona: Persona } {
  const id = `c${String(index + 1).padStart(2, "0")}`;
  const space = `eval-${id}`;
  const persona = makePersona(r.fork("persona"));
  const topics = pickTopics(r.fork("topics"));

  type Slot = { e: Exchange; key: string; topic: string | null; role: EvalMemory["role"]; t: number };
  const slots: Slot[] = [];
  const pending: { topic: Topic; q: ReturnType<Topic["build"]>["questions"][number] }[] = [];
  for (const topic of topics) {
    const tr = r.fork(`topic:${topic.id}`);
    const arc = topic.build(tr, persona);
    const long = (e: Exchange): Exchange => ({ user: e.user, assistant: elaborate(tr, topic.category, e.assistant) });
    // Facts keep their order in time: sorted positions on the conversation's timeline.
    const times = arc.facts.map(() => tr.next()).sort((a, b) => a - b);
    arc.facts.forEach((f, i) =>
      slots.push({ e: long(f), key: `${id}:${topic.id}:${f.key}`, topic: topic.id, role: "fact", t: times[i]! }),
    );
    for (const d of arc.distractors)
      if (tr.chance(0.8)) slots.push({ e: long(d), key: "", topic: topic.id, role: "distractor", t: tr.next() });
    const n = Math.min(arc.questions.length, tr.pick([1, 2, 2, 2, 3]));
    for (const q of tr.sample(arc.questions, n)) pending.push({ topic, q });
  }
  const fr = r.fork("fillers");
  const budget = fr.int(58, 78) - slots.length;
  const personal = fr.sample(personalFillers(persona), Math.max(0, Math.min(8, Math.round(budget * 0.3))));
  const generic = fr.sample(GENERIC_FILLERS, Math.max(0, budget - personal.length));
  for (const e of [...personal, ...generic]) {
    slots.push({
      e: { user: e.user, assistant: elaborateFiller(fr, e.assistant) },
      key: "",
      topic: null,
      role: "filler",
      t: fr.next(),
    });
  }

  // Timeline: sessions of 1–5 exchanges spread over 4–8 months of 2024.
  slots.sort((a, b) => a.t - b.t);
  const tl = r.fork("timeline");
  const start = Date.UTC(2024, tl.int(0, 2), tl.int(1, 28));
  const spanDays = tl.int(120, 240);
  const memories: EvalMemory[] = [];
  let filler = 0;
  let i = 0;
  let lastDay = -1;
  while (i < slots.length) {
    const size = tl.int(1, 5);
    const first = slots[i]!;
    let day = Math.floor(first.t * spanDays);
    if (day <= lastDay) day = lastDay + tl.int(0, 1);
    lastDay = day;
    let at = start + day * 86_400_000 + tl.int(7, 21) * 3_600_000 + tl.int(0, 59) * 60_000;
    for (const s of slots.slice(i, i + size)) {
      memories.push({
        key: s.key || `${id}:x${++filler}`,
        conv: id,
        timestamp: new Date(at).toISOString(),
        text: memoryText(s.e),
        topic: s.topic,
        role: s.role,
      });
      at += tl.int(2, 9) * 60_000;
    }
    i += size;
  }
  const byKey = new Map(memories.map((m) => [m.key, m]));

  // Query chats: topics in random order, a topic's questions side by side, cut into chats of 1–4 messages.
  const qr = r.fork("questions");
  const order = qr
    .shuffle([...new Set(pending.map((p) => p.topic))])
    .flatMap((t) => qr.shuffle(pending.filter((p) => p.topic === t)));
  const questions: EvalQuestion[] = [];
  let chat: string[] = [];
  let left = qr.int(1, 4);
  for (const { topic, q } of order) {
    if (left <= 0) {
      chat = [];
      left = qr.int(1, 4);
    }
    if (q.type === "followup" && q.lead) chat.push(...q.lead);
    const gold = q.gold.map((k) => `${id}:${topic.id}:${k}`);
    for (const g of gold) if (!byKey.has(g)) throw new Error(`question gold ${g} is not a memory`);
    const qs = stems(q.text);
    const gs = stems(gold.map((g) => byKey.get(g)!.text).join("\n"));
    questions.push({
      id: `${id}-q${String(questions.length + 1).padStart(2, "0")}`,
      conv: id,
      space,
      text: q.text,
      context: chat.slice(-3),
      gold,
      type: q.type,
      topic: topic.id,
      category: topic.category,
      ...(q.type === "long" ? { anchorFront: q.anchorFront ?? false } : {}),
      words: q.text.split(/\s+/).filter(Boolean).length,
      overlap: [...qs].filter((s) => gs.has(s)).length,
    });
    chat.push(q.text);
    left--;
  }
  // Unanswerable: questions of topics this persona never discussed, each asked in a fresh chat (with its lead).
  const ur = r.fork("unanswerable");
  const chosen = new Set(topics.map((t) => t.id));
  const unanswerable: EvalQuestion[] = ur
    .sample(
      TOPICS.filter((t) => !chosen.has(t.id)),
      3,
    )
    .map((topic, n) => {
      const q = ur.pick(topic.build(ur.fork(topic.id), persona).questions);
      return {
        id: `${id}-u${n + 1}`,
        conv: id,
        space,
        text: q.text,
        context: q.type === "followup" && q.lead ? q.lead.slice(-3) : [],
        gold: [],
        type: q.type,
        topic: topic.id,
        category: topic.category,
        words: q.text.split(/\s+/).filter(Boolean).length,
        overlap: 0,
      };
    });
  return { conv: { id, space, persona: persona.name, memories }, questions, unanswerable, persona };
}

/** Build the test set; the same seed and size always give the same set. */
export function generateDataset(opts: GenerateOptions = {}): EvalDataset {
  const seed = opts.seed ?? DEFAULT_SEED;
  const n = opts.conversations ?? DEFAULT_CONVERSATIONS;
  const root = createRng(seed);
  const conversations: EvalConversation[] = [];
  const questions: EvalQuestion[] = [];
  const unanswerable: EvalQuestion[] = [];
  for (let i = 0; i < n; i++) {
    const built = buildConversation(root.fork(`conversation:${i}`), i);
    conversations.push(built.conv);
    questions.push(...built.questions);
    unanswerable.push(...built.unanswerable);
  }
  return { seed, conversations, questions, unanswerable };
}

/** The first `n` conversations and their questions (a slice of the full set, for quick tests). */
export function sliceDataset(ds: EvalDataset, n: number): EvalDataset {
  const keep = new Set(ds.conversations.slice(0, n).map((c) => c.id));
  return {
    seed: ds.seed,
    conversations: ds.conversations.filter((c) => keep.has(c.id)),
    questions: ds.questions.filter((q) => keep.has(q.conv)),
    unanswerable: ds.unanswerable.filter((q) => keep.has(q.conv)),
  };
}
