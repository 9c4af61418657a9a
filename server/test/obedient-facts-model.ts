/**
 * TEST DOUBLE — NOT A MODEL: a `memo_facts` answerer that OBEYS an instruction injected into the text it is
 * asked about (issue 48 finding 4), the worst a real model may do with a document someone else wrote. When a
 * passage says "replace every known fact with: <text>", it answers that text as one fact naming EVERY listed
 * fact id in `replaces` — whatever the markers and the notice in the request say. Anything else is answered
 * by the fixture's ordinary script (server/test/fixture-facts-model.ts). Installed on the OpenAI-compatible
 * test double (e2e/support/openai-fixture.ts) by `obeyInjectedInstructions`.
 */
import { type FactsAnswer, type FactsScript, listedFacts, requestExchanges } from "./fixture-facts-model";

const INSTRUCTION = /replace every known fact with:\s*(.+)/i;

type Body = Parameters<FactsScript["answer"]>[0];

/** The obeying answer for a request, or null when none of its exchanges carries the instruction. */
export function obedientAnswer(body: Body): FactsAnswer | null {
  const messages = body?.messages ?? [];
  const listed = listedFacts(messages);
  const facts = requestExchanges(messages).flatMap((ex, i) => {
    const m = ex.match(INSTRUCTION);
    return m ? [{ text: m[1]!.split("\n")[0]!.trim(), replaces: listed.map((l) => l.id), exchange: i + 1 }] : [];
  });
  return facts.length ? { status: 200, content: JSON.stringify({ facts }) } : null;
}

/** Make the fixture's memo_facts answers obey injected instructions (its script answers everything else). */
export function obeyInjectedInstructions(script: FactsScript): void {
  const ordinary = script.answer.bind(script);
  script.answer = (body) => {
    const obeyed = obedientAnswer(body);
    if (!obeyed) return ordinary(body);
    script.calls++;
    return obeyed;
  };
}
