import { insertFacts } from "../server/memory/facts/store";
import { inProcessEmbedder } from "../server/test/in-process-embedder";
import { openTempStore } from "../server/test/temp-store";
import { persistExchange } from "../server/chat/persist";
import { recallForPrompt } from "../server/chat/turn-recall";
import { search } from "../server/memory/retrieval/search";
import { LOOP_SCENARIOS } from "../server/test/live-loop-scenarios";

const emb = await inProcessEmbedder();
const { model, dim } = await emb.info();
const s = openTempStore({ model, dim });
const ctx = { db: s.sqlite, embedder: emb };
let d = 0;
for (const sc of LOOP_SCENARIOS) {
  const at = new Date(Date.UTC(2026, 9, 1 + d++)).toISOString();
  const [id] = await persistExchange(ctx, { space: "personal", conversationId: null, user: sc.state.say, assistant: "Noted.", timestamp: at, source: "test" });
  insertFacts(ctx.db, "personal", [{ text: sc.state.fact, sources: [id!], validFrom: at, origin: "learned" }], await emb.embedDocuments([sc.state.fact]), model);
}
const NOW = "2026-11-20T12:00:00.000Z";
let legHit = 0, legTop = 0, anyHit = 0;
for (const sc of LOOP_SCENARIOS) {
  const r = await search(ctx as never, { query: sc.askBefore, space: "personal", forPrompt: true, at: NOW });
  const leg = r.factLeg ?? [];
  const fk = (r as any);
  const idx = leg.findIndex((f: any) => f.text === sc.state.fact);
  if (idx >= 0) legHit++;
  if (idx === 0) legTop++;
  const rec = await recallForPrompt(ctx as never, { space: "personal", query: sc.askBefore, context: [], at: NOW });
  const txt = JSON.stringify(rec);
  if (txt.toLowerCase().includes(sc.was.toLowerCase())) anyHit++;
  console.log(`${sc.topic.padEnd(12)} leg#${idx} of ${leg.length} top=${leg[0]?.text?.slice(0, 40)} conf=${leg[0]?.confidence?.toFixed(2)}; results ${r.results.length} packable ${r.results.filter((x: any) => x.confidence >= r.minConfidence).length}`);
}
console.log({ legHit, legTop, anyHit, n: LOOP_SCENARIOS.length });
s.close();
