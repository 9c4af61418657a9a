/**
 * LoCoMo replayed through the chat path (issue 47, `npm run eval:locomo -- --live`): each question is asked
 * in a new chat of its conversation's space, as of the conversation's last session — recalled for a prompt
 * (recallForPrompt, promoted as a turn promotes), answered by a TEST DOUBLE of a plain assistant that
 * restates the first recalled memory ("I don't know." when nothing was recalled), and stored through the
 * exchange write path (persistExchange, with what the reply was given) — before the next question. Recall@10
 * is read from the ranking each question gets before it is stored: the first asking, then every question
 * asked a second time at the end (also stored). The same run's static figure is the store before any of it.
 */
import crypto from "node:crypto";
import { persistExchange } from "../../chat/exchange-queue";
import { provenanceOf, recallForPrompt } from "../../chat/turn-recall";
import { ask, rankedTurns, spaceOf, type LocomoStore } from "./harness";
import { recallAt, type Conversation, type Question, type Row } from "./locomo";
import { estimateTokens } from "../../memory/retrieval/token-estimate";

/** TEST DOUBLE of an assistant: it restates what it was given (the first recalled memory), else does not know. */
export function restatingReply(recalled: { content: string }[]): string {
  return recalled[0]?.content ?? "I don't know.";
}

/** One question asked through the chat path: its ranking's recall@10 (before it is stored), then stored. */
async function askAndStore(store: LocomoStore, c: Conversation, q: Question): Promise<Row> {
  const space = spaceOf(c);
  const ranked = rankedTurns(store, await ask(store, space, q, c.lastDate));
  const recall = await recallForPrompt(
    store.ctx,
    { space, query: q.question, context: [], tzOffsetMinutes: 0, at: c.lastDate },
    { promote: true },
  );
  const conversationId = crypto.randomUUID();
  store.db
    .prepare("INSERT INTO conversations (id, space_id, title) VALUES (?, ?, ?)")
    .run(conversationId, space, "live");
  await persistExchange(store.ctx, {
    space,
    conversationId,
    user: q.question,
    assistant: restatingReply(recall.memories),
    timestamp: c.lastDate,
    source: "locomo live",
    recalled: provenanceOf(recall),
  });
  // What the prompt's [What I know] block cost (the facts leg's, the memories' and the profile's facts).
  const known = recall.block.startsWith("[What I know]") ? recall.block.split("\n\n[Relevant Memories]")[0]! : "";
  // What the prompt carried: the packed memories' turns, and the turns behind the facts it stated.
  const packed = recall.memories.map((m) => store.turnsOf.get(m.id) ?? []);
  const sourceOf = store.db.prepare("SELECT memory_id AS id FROM fact_sources WHERE fact_id = ?");
  const factTurns = recall.facts.flatMap((f) =>
    (sourceOf.all(f.id) as { id: string }[]).flatMap((s) => store.turnsOf.get(s.id) ?? []),
  );
  return {
    half: c.half,
    category: q.category,
    values: {
      recall10: recallAt(q.evidence, ranked, 10),
      // Share of the evidence in the packed memories, and whether a stated fact came from the evidence.
      packed: recallAt(q.evidence, packed, packed.length || 1),
      evidenceFact: q.evidence.some((e) => factTurns.includes(e)) ? 1 : 0,
      factTokens: known ? estimateTokens(known) : 0,
      facts: recall.facts.length,
    },
  };
}

/** Every question asked in order, then every question again: the rows of both askings. */
export async function replayLive(
  store: LocomoStore,
  convs: Conversation[],
  log: (m: string) => void = () => {},
): Promise<{ first: Row[]; second: Row[] }> {
  const first: Row[] = [];
  const second: Row[] = [];
  for (const c of convs) {
    for (const q of c.questions) first.push(await askAndStore(store, c, q));
    log(`live: asked ${c.id}'s ${c.questions.length} questions`);
  }
  for (const c of convs) {
    for (const q of c.questions) second.push(await askAndStore(store, c, q));
    log(`live: asked ${c.id}'s questions a second time`);
  }
  return { first, second };
}
