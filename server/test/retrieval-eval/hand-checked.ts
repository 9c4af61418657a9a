/**
 * Hand-checked paraphrase cases on the first three conversations of the default test set (seed
 * DEFAULT_SEED). Each question shares no content word with its gold exchange (stopwords aside, Porter
 * stems compared) and is asked with no conversation context, so only meaning connects them. Read and
 * confirmed by hand: the gold exchange answers the question, and no exchange of another topic does.
 *
 * The check: under the USE-lite defaults, the gold memory is in the top `within`, and no memory of an
 * unrelated topic (other life events, everyday filler) ranks above it; same-topic exchanges may.
 */
export interface HandCheckedCase {
  question: string;
  /** Memory key in the test set. */
  gold: string;
  /** The gold exchange's user line, as generated (guards against the generator drifting). */
  goldStartsWith: string;
  within: number;
  why: string;
}

export const HAND_CHECKED: HandCheckedCase[] = [
  {
    question: "What operation is my mother getting?",
    gold: "c01:parent:schedule",
    goldStartsWith: "User: My mom is having hip replacement on the 22nd.",
    within: 3,
    why: "operation → hip replacement, mother → mom",
  },
  {
    question: "What's the pup we brought home called?",
    gold: "c03:dog:adopt",
    goldStartsWith: "User: Big news: there's a corgi living with us now. Got him from the rescue last weekend, Clementine is his name.",
    within: 3,
    why: "pup → corgi, brought home → got him from the rescue, called → is his name",
  },
  {
    question: "What's my puppy's breed?",
    gold: "c03:dog:adopt",
    goldStartsWith: "User: Big news: there's a corgi living with us now.",
    within: 3,
    why: "puppy's breed → corgi",
  },
  {
    question: "Who is my instructor for the instrument?",
    gold: "c01:guitar:buy",
    goldStartsWith: "User: Bought a secondhand acoustic guitar off a marketplace for 120. Going to finally learn properly this year, with lessons from a teacher called Keisha.",
    within: 3,
    why: "instructor → teacher, instrument → guitar",
  },
  {
    question: "Where do I like to grab dinner around here?",
    gold: "c01:restaurant:fav",
    goldStartsWith: "User: New favourite place: El Farolito on the corner near our flat.",
    within: 3,
    why: "like to grab dinner → favourite place, around here → on the corner near our flat",
  },
];
