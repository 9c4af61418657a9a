/**
 * The same questions asked without a word for the person: "Which breed is my four-legged buddy?" as
 * "Which breed is the four-legged buddy?", "When is my dad's knee replacement?" as "When is Dad's knee
 * replacement?". People ask about their own things this way all the time ("Has the dog settled in
 * yet?"), and a question that says neither "I", "my" nor a name the person has told about reads as
 * general knowledge to the personal boost and the confidence (personal.ts turnIntent). Only questions
 * whose sole first-person words are "my"/"our" (in the question and its context) are rewritten and kept;
 * the history, gold and dates are unchanged.
 */
import type { LifeDataset, LifeQuestion } from "./life";

/** First-person words other than the possessives this rewrite replaces. */
const OTHER_FIRST_PERSON = /\b(i|i'm|i've|i'd|i'll|me|mine|myself|we|we're|we've|we'd|we'll|us|ours|ourselves)\b/i;
const KIN = /\b[Mm]y (mum|mom|mam|dad|daddy|mummy|mommy|grandad|grandpa|grandma|granny|gran|nan|nana)\b/g;

/** "my"/"our" become "the"; "my dad" becomes "Dad" (a kinship word used as a name). */
export function withoutPerson(text: string): string {
  return text
    .replace(KIN, (_, kin: string) => kin[0]!.toUpperCase() + kin.slice(1))
    .replace(/\b([Mm]y|[Oo]ur)\b/g, (m) => (m[0] === m[0]!.toUpperCase() ? "The" : "the"));
}

/** Whether a question can be asked without the person: its only first-person words are "my"/"our". */
export function speaksOnlyThroughPossessives(q: LifeQuestion): boolean {
  const texts = [q.text, ...q.context];
  return /\b(my|our)\b/i.test(q.text) && texts.every((t) => !OTHER_FIRST_PERSON.test(t));
}

/** The questions that can be asked without the person, so asked (same history, gold and halves). */
export function asNoPerson(ds: LifeDataset): LifeDataset {
  return {
    ...ds,
    questions: ds.questions
      .filter(speaksOnlyThroughPossessives)
      .map((q) => ({ ...q, id: `${q.id}-np`, text: withoutPerson(q.text), context: q.context.map(withoutPerson) })),
  };
}
