/**
 * Deterministic English prose for ingestion tests and the benchmark: varied sentences from a seeded
 * generator (subjects, verbs, objects, clauses, numbers), grouped into paragraphs, so tokenizers see real
 * words at a realistic characters-per-token ratio.
 */
import { createRng } from "./retrieval-eval/rng";

const SUBJECTS = [
  "The committee",
  "Our neighbour",
  "A small team of engineers",
  "The old lighthouse keeper",
  "Every student in the class",
  "The city council",
  "My grandmother",
  "The research group",
  "A travelling musician",
  "The night nurse",
  "The gardener",
  "Most of the farmers",
  "The new manager",
  "A curious child",
  "The ship's captain",
  "The museum curator",
  "Several volunteers",
  "The baker on the corner",
  "An experienced pilot",
  "The librarian",
];
const VERBS = [
  "reviewed",
  "repaired",
  "described",
  "planned",
  "questioned",
  "painted",
  "measured",
  "organised",
  "photographed",
  "studied",
  "rebuilt",
  "explained",
  "collected",
  "visited",
  "designed",
  "tested",
  "recorded",
  "delivered",
  "improved",
  "borrowed",
];
const OBJECTS = [
  "the annual budget",
  "a wooden bridge over the river",
  "the history of the harbour",
  "a new recipe for rye bread",
  "the results of the survey",
  "an abandoned railway station",
  "the schedule for the summer festival",
  "a map of the northern hills",
  "the broken clock in the square",
  "a collection of rare stamps",
  "the water supply of the village",
  "the school's science lab",
  "a plan to plant more trees",
  "the migration of the swallows",
  "an unusual pattern in the data",
  "the roof of the community hall",
  "the letters from the war",
  "a quiet path through the forest",
  "the prices at the weekly market",
  "a design for a solar oven",
];
const CLAUSES = [
  "before the first snow arrived",
  "while the rain kept falling",
  "because nobody else had the time",
  "after a long discussion",
  "even though the tools were old",
  "as the sun went down over the bay",
  "so that the children could use it",
  "without asking for help",
  "during the busiest week of the year",
  "although the instructions were unclear",
  "when the funding finally came through",
  "despite the strong wind",
  "until everyone agreed on the details",
  "once the shop had closed",
  "in less than three hours",
];
const OPENERS = [
  "However,",
  "Later that week,",
  "In the end,",
  "Meanwhile,",
  "As a result,",
  "For example,",
  "Surprisingly,",
  "At first,",
  "Eventually,",
  "Even so,",
];
const TAILS = [
  "It took {n} days to finish.",
  "About {n} people came to see it.",
  "The cost was close to {n} euros.",
  "They wrote {n} pages of notes.",
  "Nobody expected it to matter so much.",
  "The result was better than anyone hoped.",
  "Some of them still talk about it.",
  "It is still there today.",
  "Nothing quite like it had been done before.",
  "The local paper wrote a short article about it.",
];

export function englishSentence(rng: ReturnType<typeof createRng>): string {
  const opener = rng.chance(0.3) ? `${rng.pick(OPENERS)} ` : "";
  let subject = rng.pick(SUBJECTS);
  if (opener) subject = subject[0]!.toLowerCase() + subject.slice(1);
  const s = `${opener}${subject} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)} ${rng.pick(CLAUSES)}.`;
  const tail = rng.chance(0.4) ? ` ${rng.pick(TAILS).replace("{n}", String(rng.int(2, 400)))}` : "";
  return s + tail;
}

/** About `bytes` bytes (UTF-8) of English paragraphs (3–7 sentences each, blank lines between). */
export function englishText(bytes: number, seed: number | string = 1): string {
  const rng = createRng(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const n = rng.int(3, 7);
    const p = Array.from({ length: n }, () => englishSentence(rng)).join(" ");
    parts.push(p);
    size += p.length + 2;
  }
  return `${parts.join("\n\n").slice(0, bytes).trimEnd()}\n`;
}
