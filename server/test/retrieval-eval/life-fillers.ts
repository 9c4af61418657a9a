import type { Rng } from "./rng";
import type { Exchange } from "./topics";

/**
 * Everyday asks that fill most of a year of chat history: explanations, how-tos, writing help, code.
 * Combinations of a few phrasings with many subjects, so a history of 1,000+ exchanges is mostly noise
 * the way a real one is. None is about a question's subject (the unanswerable turns in life-items.ts
 * ask about other things).
 */
const CONCEPTS = [
  "compound interest",
  "photosynthesis",
  "black holes",
  "the stock market",
  "blockchain",
  "the greenhouse effect",
  "plate tectonics",
  "how airplanes fly",
  "supply and demand",
  "the immune system",
  "machine learning",
  "quantum computing",
  "tides",
  "rainbows",
  "electric cars",
  "solar panels",
  "how vaccines are tested",
  "the placebo effect",
  "mortgages",
  "index funds",
  "credit scores",
  "the water cycle",
  "DNA",
  "evolution",
  "the French Revolution",
  "the Roman Empire",
  "the Cold War",
  "jet lag",
  "caffeine",
  "the Big Bang",
  "gravity",
  "static electricity",
  "noise-cancelling headphones",
  "how microwaves heat food",
  "fermentation",
  "the electoral college",
  "inflation targets",
  "the gig economy",
  "carbon offsets",
  "nuclear fusion",
  "antibiotic resistance",
  "circadian rhythms",
  "how Wi-Fi works",
  "GPS",
  "3D printing",
  "the Fibonacci sequence",
  "prime numbers",
  "probability",
  "opportunity cost",
  "the butterfly effect",
  "cloud computing",
  "encryption",
  "how a bill becomes law",
  "the ozone layer",
  "volcanoes",
  "earthquakes",
  "hurricanes",
  "coral reefs",
  "bees and pollination",
  "the Renaissance",
  "impressionism",
  "jazz improvisation",
  "the offside rule",
  "how elections are polled",
  "dark matter",
  "the Doppler effect",
  "magnets",
];
const TASKS = [
  "remove a stripped screw",
  "descale a kettle",
  "fold a fitted sheet",
  "iron a shirt quickly",
  "sharpen a kitchen knife",
  "bleed a radiator",
  "change a bike tyre",
  "hang a heavy picture",
  "remove a sticker residue",
  "clean a mouldy shower curtain",
  "fix a squeaky door",
  "reset a tripped fuse",
  "defrost a freezer",
  "get rid of a musty smell in a wardrobe",
  "wash a wool jumper",
  "clean grout",
  "patch a small hole in drywall",
  "repot a big plant",
  "unblock a shower drain",
  "polish leather shoes",
  "set up a password manager",
  "back up my phone photos",
  "speed up an old laptop",
  "free up space on my phone",
  "make a pivot table",
  "mail merge in Word",
  "add page numbers in Google Docs",
  "screenshot a whole web page",
  "find my router's IP address",
  "turn on two-factor authentication",
  "make a gif from a video",
  "compress a big video file",
  "tie a bow tie",
  "jump start a car",
  "check tyre pressure",
  "pack a suitcase efficiently",
  "remove a wine cork without a corkscrew",
  "make cold brew coffee",
  "poach an egg",
  "cook rice without it sticking",
  "make a roux",
  "caramelise onions",
  "proof bread dough",
  "keep herbs fresh longer",
  "store avocados",
  "make vinaigrette",
  "brine a chicken",
  "temper chocolate",
  "make pancakes fluffy",
];
const WRITING = [
  "an out-of-office message",
  "a polite complaint to an airline",
  "a birthday card for a colleague",
  "a short bio for a conference badge",
  "an apology for missing a meeting",
  "a reference request to a former boss",
  "a welcome message for a new team member",
  "a note to a neighbour about a parcel",
  "a resignation letter",
  "a toast for a friend's engagement",
  "a caption for a beach photo",
  "a reminder email about an unpaid invoice",
  "a request to reschedule a dentist appointment",
  "a review of a local bakery",
  "a message declining a party invitation",
  "a short speech for a school fundraiser",
  "a LinkedIn summary",
  "a condolence card",
  "a thank-you message for a gift",
  "a request for a deadline extension",
  "an ad for selling a used bike",
  "a sign for a lost cat",
  "a limerick about a lazy dog",
  "a short poem about rain",
  "a slogan for a lemonade stand",
  "a riddle for kids",
];
const CODE = [
  "read a CSV file in Python",
  "sort a dictionary by value in Python",
  "debounce a function in JavaScript",
  "parse JSON in Go",
  "write a unit test with Jest",
  "make an HTTP request with fetch",
  "center text in a table cell",
  "use async await properly",
  "remove duplicates from an array",
  "format a date in JavaScript",
  "rename a branch in git",
  "squash commits in git",
  "write a Dockerfile for a Node app",
  "set environment variables in bash",
  "loop over files in a folder in bash",
  "make a responsive grid in CSS",
  "handle errors in a Python script",
  "read a file line by line in Java",
  "join two tables in SQL",
  "index a slow SQL query",
  "write a regex for phone numbers",
  "deep copy an object in JavaScript",
  "make a virtual environment in Python",
  "type a React component's props",
  "paginate results in an API",
  "hash a password safely",
];

const pick = <T>(r: Rng, xs: readonly T[]) => r.pick(xs);

export function lifeFillers(r: Rng, n: number): Exchange[] {
  const out: Exchange[] = [];
  const seen = new Set<string>();
  const makers: (() => Exchange)[] = [
    () => {
      const c = pick(r, CONCEPTS);
      return {
        user: pick(r, [
          `Can you explain ${c} in simple terms?`,
          `I never really understood ${c}. What's the gist?`,
          `Quick one: what's the idea behind ${c}?`,
          `How would you describe ${c} to a beginner?`,
        ]),
        assistant: `Here's the short version of ${c}: it comes down to a few core ideas, and once those click the rest follows. Think of it in everyday terms first, then the details make more sense.`,
      };
    },
    () => {
      const t = pick(r, TASKS);
      return {
        user: pick(r, [
          `How do I ${t}?`,
          `What's the easiest way to ${t}?`,
          `Any tips on how to ${t}?`,
          `I need to ${t}, where do I start?`,
        ]),
        assistant: `To ${t}, start with the simplest approach and the right tool, go slowly, and check as you go. If the first try doesn't work, a second pass usually does.`,
      };
    },
    () => {
      const w = pick(r, WRITING);
      return {
        user: pick(r, [
          `Can you write ${w}?`,
          `Help me draft ${w}, keep it short.`,
          `I need ${w}. Something friendly.`,
        ]),
        assistant: `Here's a draft of ${w}: short, warm and to the point. Adjust the names and details, and read it aloud once to check the tone.`,
      };
    },
    () => {
      const c = pick(r, CODE);
      return {
        user: pick(r, [`How do I ${c}?`, `What's the cleanest way to ${c}?`, `Show me how to ${c}.`]),
        assistant: `To ${c}, use the standard library or built-in tooling where you can; here's a small example with comments, plus the edge cases to watch for.`,
      };
    },
    () => {
      const [a, b] = r.sample(CONCEPTS, 2) as [string, string];
      return {
        user: `Is there any connection between ${a} and ${b}?`,
        assistant: `Not much directly: ${a} and ${b} belong to different fields, though both reward understanding the basic mechanism before the details.`,
      };
    },
  ];
  for (let guard = 0; out.length < n && guard < n * 50; guard++) {
    const e = r.pick(makers)();
    if (seen.has(e.user)) continue;
    seen.add(e.user);
    out.push(e);
  }
  return out;
}
