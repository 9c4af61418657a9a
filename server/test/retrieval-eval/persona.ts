import type { Rng } from "./rng";

/** Pronouns of one person or pet, so templates read naturally. */
export interface Pron {
  he: string;
  him: string;
  his: string;
  He: string;
  His: string;
}

export const HE: Pron = { he: "he", him: "him", his: "his", He: "He", His: "His" };
export const SHE: Pron = { he: "she", him: "her", his: "her", He: "She", His: "Her" };

export interface Person extends Pron {
  name: string;
}

export interface Persona {
  name: string;
  city: string;
  partner: Person & { rel: "husband" | "wife" | "partner" | "girlfriend" | "boyfriend" };
  sibling: Person & { rel: "sister" | "brother" };
  kid: Person & { rel: "son" | "daughter"; age: number };
  friend: Person;
  friend2: Person;
  boss: Person;
  coworker: Person;
  parent: Person & { rel: "mom" | "dad" };
}

const FEMALE = [
  "Ava",
  "Chloe",
  "Elena",
  "Grace",
  "Isla",
  "Kira",
  "Maya",
  "Olivia",
  "Priya",
  "Rosa",
  "Tara",
  "Vera",
  "Zoe",
  "Bianca",
  "Dana",
  "Fiona",
  "Hana",
  "Jade",
  "Lena",
  "Nina",
  "Paula",
  "Sofia",
  "Una",
  "Wendy",
  "Yara",
  "Mei",
  "Ingrid",
  "Leila",
  "Anika",
  "Marisol",
  "Tamsin",
  "Esther",
  "Noor",
  "Greta",
];
const MALE = [
  "Ben",
  "Daniel",
  "Farid",
  "Hugo",
  "Jonas",
  "Liam",
  "Noah",
  "Quinn",
  "Sam",
  "Umar",
  "Wes",
  "Yusuf",
  "Aiden",
  "Carlos",
  "Emil",
  "Gabe",
  "Ivan",
  "Kofi",
  "Marco",
  "Oscar",
  "Rafael",
  "Theo",
  "Victor",
  "Zane",
  "Tomas",
  "Ravi",
  "Pete",
  "Dev",
  "Arjun",
  "Felix",
  "Malik",
  "Bruno",
  "Lars",
];
const HOME_CITIES = [
  "Portland",
  "Leeds",
  "Melbourne",
  "Toronto",
  "Denver",
  "Bristol",
  "Austin",
  "Glasgow",
  "Minneapolis",
  "Wellington",
  "Pittsburgh",
  "Cork",
  "Sacramento",
  "Manchester",
  "Halifax",
  "Adelaide",
  "Tucson",
  "Utrecht",
];

export function makePersona(r: Rng): Persona {
  const used = new Set<string>();
  const person = (gender?: "f" | "m"): Person => {
    const g = gender ?? (r.chance(0.5) ? "f" : "m");
    const pool = (g === "f" ? FEMALE : MALE).filter((n) => !used.has(n));
    const name = r.pick(pool);
    used.add(name);
    return { name, ...(g === "f" ? SHE : HE) };
  };
  const self = person();
  const partnerGender = r.chance(0.8) ? (self.he === "she" ? "m" : "f") : self.he === "she" ? "f" : "m";
  const partner = person(partnerGender);
  const partnerRel = r.pick(
    partnerGender === "f"
      ? (["wife", "partner", "girlfriend"] as const)
      : (["husband", "partner", "boyfriend"] as const),
  );
  const sibling = person();
  const kid = person();
  const parent = person();
  return {
    name: self.name,
    city: r.pick(HOME_CITIES),
    partner: { ...partner, rel: partnerRel },
    sibling: { ...sibling, rel: sibling.he === "she" ? "sister" : "brother" },
    kid: { ...kid, rel: kid.he === "she" ? "daughter" : "son", age: r.int(4, 12) },
    friend: person(),
    friend2: person(),
    boss: person(),
    coworker: person(),
    parent: { ...parent, rel: parent.he === "she" ? "mom" : "dad" },
  };
}

export const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
