/**
 * The same history as an imported conversation between two named people (the shape of the public
 * long-conversation benchmarks): every exchange is "<persona>: …\n<other>: …" instead of "User: … /
 * Assistant: …", and the questions ask about the persona by name in the third person ("What ceramics
 * class did Sam enrol in?", "What trick did Robin give Sam for misty spectacles?"). The speakers' names
 * are then in every memory, which is what dense-query cleaning is for; the personal boost, which reads
 * first-person questions, has nothing to read. Gold, dates and halves are unchanged.
 */
import type { LifeDataset } from "./life";

export const OTHER_SPEAKER = "Robin";

const HOW_TO = /^\s*how (do|can|should|would) (i|we)\b/i;

/** "User: … Assistant: …" with the two roles named. */
export function namedExchange(text: string, person: string, other = OTHER_SPEAKER): string {
  return text.replace(/^User:/, `${person}:`).replace(/(\s)Assistant:/, `$1${other}:`);
}

/**
 * A question in the first person, asked about the persona in the third: "I"/"me"/"my" become the
 * persona's name, "you"/"your" the other speaker's, and the auxiliaries that go with "I" agree.
 */
export function thirdPerson(q: string, person: string, other = OTHER_SPEAKER): string {
  // Placeholders first, names last: a name is never re-read by a later rule.
  const P = "\u0001";
  const O = "\u0002";
  const rules: [RegExp, string | ((m: string, ...g: string[]) => string)][] = [
    [/\b([Aa])m I\b/g, (_, a) => `${a === "A" ? "Is" : "is"} ${P}`],
    [/\b([Dd])o I\b/g, (_, d) => `${d}oes ${P}`],
    [/\b([Hh])ave I\b/g, (_, h) => `${h}as ${P}`],
    [/\bI am\b|\bI'm\b/g, `${P} is`],
    [/\bI've\b/g, `${P} has`],
    [/\bI'd\b/g, `${P} would`],
    [/\bI'll\b/g, `${P} will`],
    [/\bI\b/g, P],
    [/\b[Mm]y\b|\bmine\b/g, `${P}'s`],
    [/\bmyself\b|\bme\b/g, P],
    [/\b[Yy]our\b/g, `${O}'s`],
    [/\b[Yy]ourself\b|\b[Yy]ou\b/g, O],
  ];
  let s = q;
  for (const [re, to] of rules) s = s.replace(re, to as string);
  return s.replaceAll(P, person).replaceAll(O, other);
}

export function asNamedSpeakers(ds: LifeDataset, other = OTHER_SPEAKER): LifeDataset {
  return {
    ...ds,
    space: `${ds.space}-named`,
    // The stored speakers are named too: the persona said the user's part, `other` the assistant's.
    memories: ds.memories.map((m) => ({
      ...m,
      text: namedExchange(m.text, ds.persona, other),
      said: m.said?.map((p) => ({ name: p.role === "assistant" ? other : ds.persona, text: p.text })),
    })),
    // Unanswerable turns about the person's own people and things ("my cousin Bartholomew", "the kayak
    // I was going to buy") are asked about the persona; a how-to ("How do I center a div?") and a
    // general-knowledge turn ("Why do onions make you cry?": a generic "you") stay as asked.
    questions: ds.questions.map((q) =>
      q.type === "unanswerable" && (HOW_TO.test(q.text) || !/\b(I|my|me|mine)\b/.test(q.text))
        ? q
        : {
            ...q,
            text: thirdPerson(q.text, ds.persona, other),
            context: q.context.map((c) => thirdPerson(c, ds.persona, other)),
          },
    ),
  };
}
