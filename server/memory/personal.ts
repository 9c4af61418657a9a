/**
 * Who a memory is about. Chat histories mix two kinds of exchange: the person telling the assistant
 * about their life ("We adopted a beagle", "I'm allergic to nuts") and everyday asks that say nothing
 * about them ("How do I descale a kettle?"). A question about the person ("what's my dog called?",
 * "do I like horror films?") is answered by the first kind; a general-knowledge turn by neither.
 */

export type QueryIntent = "personal" | "assistant" | "general";

const FIRST_PERSON = /\b(i|i'm|i've|i'd|i'll|my|mine|me|we|we're|we've|our|ours|us)\b/i;
const HOW_TO =
  /^\s*(how (do|can|should|would) (i|we)|what('s| is) the (best|easiest|cleanest|quickest) way|can you|could you|please|write|give me|explain|show me)\b/i;
const ASKS_ASSISTANT =
  /\b(you|your) (suggest|suggested|recommend|recommended|advise|advised|propose|proposed|told|tell|said|say|gave|give|mention|mentioned|think|thought)\b|\byour (advice|tip|suggestion|recommendation|idea)\b|\bdid you\b/i;

// "How do I fix the leak I told you about?" is about the person even though it starts like a how-to.
const TOLD_YOU = /\b(i|we) (told|mentioned to|said to|asked) you\b|\bremember (when|that|what) (i|we)\b/i;

// "Give me the whole story of the guitar", "Back in April, what was going on with the garden?": a request
// to recount the person's own past, even when it starts like an ask or names no one.
const RECOUNT =
  /\b(the (whole|full|entire) story|recap|remind me|catch me up|fill me in|what (was|has been) (going on|happening) with|back in (january|february|march|april|may|june|july|august|september|october|november|december|the spring|the summer|the autumn|the fall|the winter))\b/i;

// A kinship word used as a name ("How is pops healing?", "grandad's watch") is the person's own family;
// "a dad joke", "the mother of all…" are not.
const KIN_AS_NAME =
  /(?<!\b(a|an|the|his|her|their|your|its|some|any|every|this|that)\s+)\b(mum|mom|mam|mummy|mommy|dad|daddy|pops|papa|grandad|granddad|grandpa|grandma|granny|gran|nan|nana|nanna)\b/i;

// "How do I like my steak?" asks about the person's taste, not for instructions.
const HOW_I_LIKE = /^\s*how (do|did|would) (i|we) (like|want|prefer|take|usually|normally|feel)\b/i;

/**
 * What a query asks about, by its own words: the person's own life (it speaks in the first person), what
 * the assistant said, or neither. This is what the personal boost reads.
 */
export function queryIntent(query: string): QueryIntent {
  if (ASKS_ASSISTANT.test(query)) return "assistant";
  if (TOLD_YOU.test(query) || HOW_I_LIKE.test(query)) return "personal";
  if (HOW_TO.test(query)) return "general";
  return FIRST_PERSON.test(query) ? "personal" : "general";
}

/**
 * What the turn asks about, for the confidence: the query's own intent, or, when its words name no one,
 * the signs that it is still about the person's life — a request to recount it ("Give me the whole
 * story of the guitar"), a family member called by a kinship word ("How is pops healing?"), a name the
 * person has told about (`toldOf` says which names of a text those are: keyword-search.ts
 * `namesToldOf`), a time of the person's own history (`historyDate`: the words of a past date window
 * the query names that holds memories of the space, "in May", "the day after the concert"; retrieve.ts)
 * — and otherwise the frame of the conversation's last earlier message (`context`,
 * oldest first): a follow-up like "Is he up and walking yet?" is as personal as the message before it.
 * Boosting these too cost recall on the eval's tuning half (docs/retrieval.md#filtering-and-confidence).
 * `sign` says which sign made a turn personal that its own words did not (Debug Search shows it).
 * `speakers`: speakers of the space's conversations the query names (keyword-search.ts `speakersNamed`),
 * which make it personal first (`speakerIntent`).
 */
export function turnIntent(
  query: string,
  context: string[] = [],
  toldOf: (text: string) => string[] = () => [],
  historyDate: string | null = null,
  speakers: string[] = [],
): { intent: QueryIntent; sign: string | null } {
  const own = queryIntent(query);
  if (own !== "general") return { intent: own, sign: null };
  if (speakerIntent(query, speakers))
    return {
      intent: "personal",
      sign: `it asks about ${speakers.join(", ")}, who speak${speakers.length > 1 ? "" : "s"} in these conversations`,
    };
  if (RECOUNT.test(query)) return { intent: "personal", sign: "a request to recount the person's past" };
  const kin = KIN_AS_NAME.exec(query);
  if (kin) return { intent: "personal", sign: `“${kin[0]}” is family` };
  if (HOW_TO.test(query)) return { intent: "general", sign: null };
  const names = toldOf(query);
  if (names.length) return { intent: "personal", sign: `the person has told about ${names.join(", ")}` };
  if (historyDate) return { intent: "personal", sign: `it names a time of the person's history, “${historyDate}”` };
  const last = context.at(-1);
  if (!last) return { intent: "general", sign: null };
  const frame = turnIntent(last, [], toldOf);
  return frame.intent === "general" ? frame : { intent: frame.intent, sign: "a follow-up of the previous message" };
}

/** The user's words of a "User: … Assistant: …" memory (the whole content otherwise). Stored exchanges are on one line (the chunker normalises whitespace). */
export function userPart(content: string): string {
  const m = /^\s*User:\s*([\s\S]*?)\s+Assistant:/.exec(content);
  return m ? m[1]! : content;
}

// An ask addressed to the assistant, in the first person but about a task, not the person: an imperative
// ("Help me draft…", "Write me…", "Could you…") or a request for a piece of writing ("I need a toast for…").
const REQUEST =
  /^\s*(please\s+)?(help|write|draft|give|make|tell|show|explain|suggest|recommend|list|summari[sz]e|translate|fix|review|rewrite|create|generate|compose|convert|describe|compare|proofread|edit)\s+(me|us|a|an|the|my|our|some|this|that|these|those|it|how|what|why|when|where|who|which|\d)\b|^\s*(can|could|would|will) you\b|^\s*i (need|want|would like|'d like) (a|an|some) ([\w-]+ ){0,3}(message|letter|email|e-mail|note|caption|toast|speech|post|bio|reply|response|draft|template|summary|poem|story|script|request|invitation|announcement|slogan|joke|tweet|card|apology|review|sign|limerick|haiku)\b/i;
// The framing of a knowledge question ("I never really understood tides. What's the gist?").
const CURIOUS =
  /^\s*i('ve| have)? (always |often )?(wondered|been wondering|never (really )?(understood|got)|don't (really )?(understand|get)|'m curious|am curious|was wondering)\b/i;

// A speaker's label in a conversation between named people: "Caroline: …" at the start or after a space
// (exchanges are stored on one line).
const SPEAKER_LABEL = /(?:^|\s)(\p{Lu}[\p{L}\p{M}'’.-]*):\s/gu;

/** The labels of an exchange between named people, in order of first appearance ("Caroline", "Melanie"). */
export function speakerLabels(content: string): string[] {
  return [...new Set([...content.matchAll(SPEAKER_LABEL)].map((m) => m[1]!))];
}

/**
 * What one speaker says in an exchange between named people ("Caroline: … Melanie: …"): each of their
 * turns, up to the next label; "" when they do not speak in it.
 */
export function speakerPart(content: string, speaker: string): string {
  const labels = [...content.matchAll(SPEAKER_LABEL)];
  const parts: string[] = [];
  labels.forEach((m, i) => {
    if (m[1] !== speaker) return;
    const end = i + 1 < labels.length ? labels[i + 1]!.index! : content.length;
    parts.push(content.slice(m.index! + m[0].length, end).trim());
  });
  return parts.join(" ");
}

/** A text's sentences, split after ".", "!" or "?" (exchanges are stored on one line). */
export function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?])\s+/).filter(Boolean);
}

/** A sentence that tells something: not a question, an ask of the assistant, or the framing of one. */
export function isStatement(sentence: string): boolean {
  const t = sentence.trim();
  return t.length > 0 && !t.endsWith("?") && !REQUEST.test(t) && !CURIOUS.test(t);
}

/** Words with a first-person statement in them, not only bare questions or asks. */
export function statesAboutSelf(words: string): boolean {
  const u = words.trim();
  if (!FIRST_PERSON.test(u)) return false;
  return sentencesOf(u).some((s) => isStatement(s) && FIRST_PERSON.test(s));
}

/**
 * The person tells something about themselves: a first-person statement, not a bare question or an ask.
 * With `speakers` (a question that names speakers of an imported conversation, keyword-search.ts
 * `speakersNamed`): one of them does, in their own turns of the exchange.
 */
export function isSelfDisclosure(content: string, speakers: string[] = []): boolean {
  if (speakers.length) return speakers.some((sp) => statesAboutSelf(speakerPart(content, sp)));
  // A note kept with /remember or an ingested document is the person's own material, not an everyday ask.
  if (!/^\s*User:/.test(content)) return true;
  return statesAboutSelf(userPart(content));
}

/**
 * A question that names a speaker of the space's conversations ("What did Caroline research?", where
 * every exchange is "Caroline: … Melanie: …") asks about that speaker's life, as a first-person question
 * asks about the person's: intent `personal`, with their own statements the ones that suit it. A how-to
 * stays general.
 */
export function speakerIntent(query: string, speakers: string[]): QueryIntent | null {
  if (!speakers.length || HOW_TO.test(query) || queryIntent(query) !== "general") return null;
  return "personal";
}

/** Does this memory suit the query's intent (the confidence feature and the personal boost)? */
export function suitsIntent(intent: QueryIntent, content: string, speakers: string[] = []): boolean {
  if (intent === "general") return false;
  if (intent === "assistant") return true;
  return isSelfDisclosure(content, speakers);
}
