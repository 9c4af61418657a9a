/**
 * The dense query as a statement (docs/retrieval.md#the-dense-query): memories are statements ("I keep
 * my to-do list in a paper notebook"), questions are not ("Do I keep my tasks on my phone?"). A small
 * encoder gives the question form itself — the question word, the inverted auxiliary, the question mark
 * — enough weight that a question sits nearer other questions than the statement that answers it. A
 * question is a sentence that ends in "?", or one typed without a closing mark that opens with a
 * question word or an auxiliary ("what did I say about the boiler"). The keyword leg and the
 * confidence read the words as typed.
 */

const WH = "what|which|where|when|who|whom|whose|why|how";
/** Auxiliaries a question inverts before its subject ("did I", "is he"), and that open an unmarked one. */
const AUX = "do|does|did|am|is|are|was|were|can|could|would|will|should|have|has|had";

/** Question words, with the phrases that open a question as one unit ("how many", "what kind of"). */
const QUESTION_WORD = new RegExp(
  `^(?:(?:${WH})(?:['’]s|['’]re)?(?:\\s+(?:much|many|long|often|far|old|kind\\s+of|sort\\s+of|type\\s+of))?)\\s+`,
  "iu",
);

/** The auxiliary a question inverts, rarer modals and negatives too ("shall we", "can't we"). */
const AUXILIARY = new RegExp(
  `^(?:${AUX}|shall|may|might|must|(?:don|doesn|didn|isn|aren|wasn|weren|can|couldn|wouldn|won|shouldn|haven|hasn|hadn)['’]t)\\s+`,
  "iu",
);

/**
 * What opens a question typed without its mark. Negative contractions are left out: unmarked, they
 * mostly open statements ("can't sleep again", "don't forget the keys").
 */
const OPENS_QUESTION = new RegExp(`^(?:${WH}|${AUX})\\b(?!['’])`, "iu");

/** A question: ends in "?", or has no closing mark and opens like one. */
function isQuestion(trimmed: string): boolean {
  return /[?？]$/u.test(trimmed) || (!/[.!。！]$/u.test(trimmed) && OPENS_QUESTION.test(trimmed));
}

/** One question as a statement: "When is my dad's knee replacement?" → "my dad's knee replacement". */
export function questionAsStatement(sentence: string): string {
  const trimmed = sentence.trim();
  if (!isQuestion(trimmed)) return sentence;
  const body = trimmed.replace(/[?？]+$/u, "").trim();
  const stated = body.replace(QUESTION_WORD, "").replace(AUXILIARY, "").trim();
  // A question that is nothing but its frame ("?") has nothing else to embed, so it stays.
  return stated || sentence;
}

/** Every question in a text stated (lines and sentences kept in order; statements unchanged). */
export function statedQuestions(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      line
        .split(/(?<=[.!?])\s+/u)
        .map(questionAsStatement)
        .join(" "),
    )
    .join("\n");
}
