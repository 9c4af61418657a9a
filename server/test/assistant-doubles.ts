/**
 * TEST DOUBLES — NOT MODELS: two ways a chat model answers from what Memo gave it, for the live-loop suite
 * (server/chat/live-loop.eval.ts, `npm run eval:live-loop`; its smoke live-loop-smoke.test.ts). Plugged into the OpenAI-compatible test double
 * (e2e/support/openai-fixture.ts, `replyWith`), so the real chat path runs around them.
 *
 * - `restatingReply`: a plain assistant — it restates what it was given: the line of `[What I know]` most
 *   like the question (most shared words), else the first recalled statement; "I don't know" without either.
 * - `echoingReply`: a careless one — it repeats everything it was given (the memory part of the system
 *   prompt and the earlier turns), so every recalled memory, outdated or not, is in its reply.
 */
import type { FixtureMessage } from "../../e2e/support/openai-fixture";

const text = (c: FixtureMessage["content"]) =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p.text ?? "").join("") : "";

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** The memory part of the prompt: from the first block header to the end of the system message. */
export function memoryPart(messages: FixtureMessage[]): string {
  const sys = messages.find((m) => m.role === "system");
  const t = sys ? text(sys.content) : "";
  const at = t.search(/^\[(What I know|Relevant Memories)\]$/m);
  return at >= 0 ? t.slice(at).trim() : "";
}

/** The `[What I know]` lines a prompt states as current ("- <fact> (since <day>)"), as the fact's text. */
export function knownLines(memory: string): string[] {
  if (!memory.startsWith("[What I know]")) return [];
  return memory
    .split("\n\n")[0]!
    .split("\n")
    .slice(1)
    .filter((l) => l.startsWith("- ") && / \(since [^)]*\)$/.test(l))
    .map((l) => l.slice(2).replace(/ \(since [^)]*\)$/, ""));
}

/** The first recalled statement: the first memory's first line of words ("the user said: “…”", or its text). */
export function firstRecalled(memory: string): string | null {
  const at = memory.indexOf("[Relevant Memories]\n");
  if (at < 0) return null;
  const first = memory.slice(at + "[Relevant Memories]\n".length).split("\n- ")[0]!;
  const body = first
    .replace(/^- \d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?[^:]*: /, "") // the date (and time of a shared day), its source
    .split("\n")[0]!
    .trim();
  const quoted = body.match(/said: “(.*)”$/);
  return (quoted ? quoted[1]! : body.replace(/^User: /, "")).trim() || null;
}

const lastUser = (messages: FixtureMessage[]) =>
  text([...messages].reverse().find((m) => m.role === "user")?.content ?? "");

export function restatingReply(messages: FixtureMessage[]): string {
  const memory = memoryPart(messages);
  const known = knownLines(memory);
  if (known.length) {
    const q = words(lastUser(messages));
    let best = known[0]!;
    let bestShared = -1;
    for (const line of known) {
      const shared = [...words(line)].filter((w) => q.has(w)).length;
      if (shared > bestShared) {
        best = line;
        bestShared = shared;
      }
    }
    return `From what I know: ${best}`;
  }
  const first = firstRecalled(memory);
  return first ? `You told me: ${first}` : "I don't know that yet.";
}

export function echoingReply(messages: FixtureMessage[]): string {
  const memory = memoryPart(messages);
  const history = messages
    .slice(1, -1)
    .map((m) => `${m.role}: ${text(m.content)}`)
    .join("\n");
  return [`Everything I was given for: ${lastUser(messages)}`, memory || "(no memory)", history]
    .filter(Boolean)
    .join("\n\n");
}
