import type { MemoApi, NewMemory } from "./memo-api";

/** A small, varied set of memories (kinds, times, a pin) in its own space, for page screenshots. Idempotent: duplicates are not stored twice. */
export const SHOWCASE_SPACE = "e2e-showcase";

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

export const SHOWCASE: NewMemory[] = [
  { text: "My dog Rex loves chasing tennis balls in the park every morning", timestamp: ago(40), kind: "chat" },
  { text: "Our puppy enjoys fetching sticks by the river", timestamp: ago(33), kind: "chat" },
  { text: "Rex is allergic to chicken; buy the salmon kibble", timestamp: ago(20), kind: "remember", pinned: true },
  {
    text: "The vet appointment for Rex is on the first Monday of the month",
    timestamp: ago(12),
    kind: "chat",
    importance: 3,
  },
  { text: "Dog training notes: reward recall with a treat within two seconds", timestamp: ago(9), kind: "document" },
  { text: "The quarterly tax report is due at the end of April", timestamp: ago(25), kind: "import" },
  { text: "I bought a new espresso machine for the kitchen", timestamp: ago(5), kind: "chat" },
  { text: "Sourdough starter: feed it once a day at room temperature", timestamp: ago(2), kind: "import" },
  { text: "User prefers short answers with bullet points", timestamp: ago(1), kind: "consolidated", importance: 4 },
];

export async function seedShowcase(api: MemoApi): Promise<void> {
  await api.addMemories(SHOWCASE.map((m) => ({ ...m, space: SHOWCASE_SPACE })));
}
