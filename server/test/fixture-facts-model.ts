/**
 * TEST DOUBLE — NOT A MODEL: answers Memo's `memo_facts` structured-output requests (server/memory/facts/
 * extract.ts) deterministically from a script of canned answers keyed by the exchange, so the learning path
 * (queue → provider → check → store) runs for real without a language model. It can also answer badly on
 * demand. Used by e2e/support/openai-fixture.ts (the OpenAI-compatible test double), which the unit tests,
 * the e2e run and `npm run bench` start.
 *
 * A script entry is chosen by a piece of the exchange's text (`when`; in a chat exchange, of what the user said). Its facts name what they replace by a
 * piece of a listed fact's TEXT; the double looks the id up in the request's `[<id>] <text>` lines, as a
 * model reads them — so it can only name listed ids unless an entry asks for an unknown one. Exchanges no
 * entry matches get no facts. `bad` answers: not JSON, nothing, the wrong shape, a huge answer, an id that
 * was never listed, HTTP 500, or no answer at all; `times` limits that to the first N asks of the entry.
 */

export type FactsBadOutput = "not_json" | "empty" | "wrong_shape" | "huge" | "unknown_id" | "status_500" | "hang";

export interface FactsScriptEntry {
  /** A piece of the exchange's text that selects this entry (case-insensitive). */
  when: string;
  facts?: { text: string; replaces?: string[] }[];
  bad?: FactsBadOutput;
  /** With `bad`: only the first `times` asks answer badly, later ones with `facts`. */
  times?: number;
}

/** A memo_facts request: the schema name in response_format (OpenAI-compatible) or a forced tool. */
export function isFactsRequest(body: unknown): boolean {
  const b = body as { response_format?: { json_schema?: { name?: string } } } | null;
  return b?.response_format?.json_schema?.name === "memo_facts";
}

type Msg = { role: string; content: unknown };
const text = (c: unknown) =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => (p as { text?: string }).text ?? "").join("") : "";

/** The listed facts of a request: every `[<id>] <text>` line of its system messages. */
export function listedFacts(messages: Msg[]): { id: string; text: string }[] {
  const out: { id: string; text: string }[] = [];
  for (const m of messages) {
    if (m.role !== "system") continue;
    for (const line of text(m.content).split("\n")) {
      const at = line.match(/^\[([^\]\s]+)\] (.+)$/);
      if (at) out.push({ id: at[1]!, text: at[2]! });
    }
  }
  return out;
}

/** The exchanges of the last user message (several after "--- exchange N ---" lines). */
export function requestExchanges(messages: Msg[]): string[] {
  const last = text([...messages].reverse().find((m) => m.role === "user")?.content ?? "");
  const parts = last.split(/^--- exchange \d+ ---$/m);
  return parts.length === 1 ? [last] : parts.slice(1).map((p) => p.trim());
}

export type FactsAnswer = { status: 200; content: string } | { status: 500 } | { status: "hang" };

export class FactsScript {
  entries: FactsScriptEntry[] = [];
  /** memo_facts requests answered, and how many exchanges they carried. */
  calls = 0;
  exchanges = 0;
  /** Each request's exchanges, joined: for counting one test's own calls (`callsContaining`). */
  private readonly requested: string[] = [];
  private readonly asked = new Map<FactsScriptEntry, number>();

  constructor(entries: FactsScriptEntry[] = []) {
    this.entries = entries;
  }

  set(entries: FactsScriptEntry[]): void {
    this.entries = entries;
    this.asked.clear();
  }

  /**
   * A NAIVE extractor (TEST DOUBLE of a careless model): it learns from the whole exchange, the assistant's
   * words too — every entry whose piece occurs anywhere in it answers, so a reply that echoes an old
   * statement teaches that statement's fact again. Off: the careful double below.
   */
  readsWholeExchange = false;

  /** The entries for an exchange: matched on what the user said (a reply echoing old memories does not count). */
  private entriesFor(exchange: string): FactsScriptEntry[] {
    if (this.readsWholeExchange) {
      const all = exchange.toLowerCase();
      return this.entries.filter((e) => all.includes(e.when.toLowerCase()));
    }
    const userPart = exchange.startsWith("User: ") ? exchange.split("\nAssistant: ")[0]! : exchange;
    const t = userPart.toLowerCase();
    const entry = this.entries.find((e) => t.includes(e.when.toLowerCase()));
    return entry ? [entry] : [];
  }

  /** The requests whose exchanges contain `text`: a test's own calls, whatever else is learned meanwhile. */
  callsContaining(text: string): number {
    return this.requested.filter((r) => r.includes(text)).length;
  }

  answer(body: { messages?: Msg[] } | null): FactsAnswer {
    const messages = body?.messages ?? [];
    const listed = listedFacts(messages);
    const exchanges = requestExchanges(messages);
    this.calls++;
    this.exchanges += exchanges.length;
    this.requested.push(exchanges.join("\n"));
    const facts: { text: string; replaces: string[]; exchange: number }[] = [];
    for (const [i, ex] of exchanges.entries())
      for (const entry of this.entriesFor(ex)) {
        const n = (this.asked.get(entry) ?? 0) + 1;
        this.asked.set(entry, n);
        const bad = entry.bad && (entry.times === undefined || n <= entry.times) ? entry.bad : undefined;
        if (bad === "status_500") return { status: 500 };
        if (bad === "hang") return { status: "hang" };
        if (bad === "not_json") return { status: 200, content: "Sure! Here are the facts: the user lives somewhere." };
        if (bad === "empty") return { status: 200, content: "" };
        if (bad === "wrong_shape")
          return { status: 200, content: JSON.stringify({ fact: "The user lives in Lisbon." }) };
        if (bad === "huge") return { status: 200, content: JSON.stringify({ facts: [{ text: "x".repeat(40_000) }] }) };
        for (const f of entry.facts ?? []) {
          const replaces = (f.replaces ?? [])
            .map((piece) => listed.find((l) => l.text.toLowerCase().includes(piece.toLowerCase()))?.id)
            .filter((id): id is string => Boolean(id));
          if (bad === "unknown_id") replaces.push("00000000-0000-4000-8000-000000000000");
          facts.push({ text: f.text, replaces, exchange: i + 1 });
        }
      }
    return { status: 200, content: JSON.stringify({ facts }) };
  }
}
