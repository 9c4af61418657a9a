/**
 * The measurement behind consolidation's rule for duplicate facts (docs/jobs.md#duplicate-facts): the cosine
 * of realistic fact pairs — duplicates, and different facts one word apart — with the embedding model the
 * app would use here (the bundled Universal Sentence Encoder lite; documents embedded as facts are), and
 * whether the rule (server/memory/facts/duplicate-key.ts) calls each pair a duplicate.
 *
 *   node --import tsx scripts/measure-fact-duplicates.ts
 */
import { duplicateKey } from "../server/memory/facts/duplicate-key";
import { inProcessEmbedder } from "../server/test/in-process-embedder";

type Pair = [string, string];

const DUPLICATES: Pair[] = [
  ["Mia's sister Lena lives in Porto", "Lena, Mia's sister, lives in Porto"],
  ["Works as a nurse at St. Mary's hospital", "Is a nurse at St Mary's hospital"],
  ["Has a dog named Biscuit", "Owns a dog called Biscuit"],
  ["Is vegetarian", "Is a vegetarian"],
  ["Is allergic to peanuts", "Has a peanut allergy"],
  ["Birthday is on 12 March", "Was born on March 12"],
  ["Prefers tea over coffee", "Likes tea more than coffee"],
  ["Plays the guitar", "Plays guitar"],
  ["Lives in Lisbon", "Lives in Lisbon."],
  ["Lives in Lisbon", "lives in lisbon"],
  ["The user lives in Lisbon", "User lives in Lisbon"],
  ["Drives a red Toyota Corolla", "Has a red Toyota Corolla car"],
  ["Daughter Emma started school in September 2024", "Emma, the daughter, started school in September 2024"],
  ["Is training for the Berlin marathon", "Training for the Berlin marathon"],
  ["Is learning Spanish", "Is learning to speak Spanish"],
  ["Her partner is called Sam", "Her partner's name is Sam"],
  ["Works at Siemens in Munich", "Works in Munich at Siemens"],
  ["Has been vegetarian since 2019", "Vegetarian since 2019"],
  ["Their cat Miso is 3 years old", "Cat Miso is 3 years old"],
];

const DIFFERENT: Pair[] = [
  ["Lives in Berlin", "Lives in Lisbon"],
  ["Has a dog named Biscuit", "Has a cat named Biscuit"],
  ["Has two children", "Has three children"],
  ["Works as a nurse", "Works as a teacher"],
  ["Mia's sister Lena lives in Porto", "Mia's brother Tom lives in Porto"],
  ["Is allergic to peanuts", "Is allergic to cats"],
  ["Birthday is on 12 March", "Birthday is on 12 May"],
  ["Likes tea", "Dislikes tea"],
  ["Is vegetarian", "Is vegan"],
  ["Plays the guitar", "Plays the piano"],
  ["Drives a red Toyota Corolla", "Drives a blue Toyota Corolla"],
  ["Is learning Spanish", "Is learning French"],
  ["Daughter Emma started school in September 2024", "Son Leo started school in September 2024"],
  ["Is training for the Berlin marathon", "Ran the Berlin marathon"],
  ["Is vegetarian", "Is not vegetarian"],
  ["Eats meat", "Does not eat meat"],
  ["Has a car", "Has no car"],
  ["Lena is Mia's sister", "Mia is Lena's sister"],
  ["Tom owes Anna 50 euros", "Anna owes Tom 50 euros"],
  ["Moved to Lisbon after the wedding", "Moved to Lisbon before the wedding"],
  ["Likes tea more than coffee", "Likes coffee more than tea"],
];

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

async function main() {
  const embedder = await inProcessEmbedder();
  const { model } = await embedder.info();
  console.log(`model: ${model}\n`);
  for (const [name, pairs] of [
    ["duplicates", DUPLICATES],
    ["different facts", DIFFERENT],
  ] as const) {
    const cosines: number[] = [];
    let merged = 0;
    console.log(`${name}:`);
    for (const [a, b] of pairs) {
      // Unit vectors (toUnitVector): the dot product is the cosine.
      const [va, vb] = await embedder.embedDocuments([a, b]);
      const c = dot(va!, vb!);
      const same = duplicateKey(a) === duplicateKey(b);
      if (same) merged++;
      cosines.push(c);
      console.log(`  ${c.toFixed(3)}  ${same ? "merged" : "kept  "}  ${a}  |  ${b}`);
    }
    console.log(
      `  ${pairs.length} pairs, cosine ${Math.min(...cosines).toFixed(3)}–${Math.max(...cosines).toFixed(3)}, ${merged} merged by the rule\n`,
    );
  }
}

void main();
