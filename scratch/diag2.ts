import { inProcessEmbedder } from "../server/test/in-process-embedder";
import { LOOP_SCENARIOS } from "../server/test/live-loop-scenarios";
const emb = await inProcessEmbedder();
const facts = LOOP_SCENARIOS.map((s) => s.state.fact);
const fv = await emb.embedDocuments(facts);
const cos = (a: Float32Array, b: Float32Array) => { let d = 0, na = 0, nb = 0; for (let i = 0; i < a.length; i++) { d += a[i]! * b[i]!; na += a[i]! ** 2; nb += b[i]! ** 2; } return d / Math.sqrt(na * nb); };
let top1 = 0; const zs: number[] = []; const zw: number[] = [];
const everyday = ["Can you suggest a pasta recipe for tonight?", "What's the capital of Australia?", "Write a haiku about autumn", "How do I reverse a list in Python?", "Explain how vaccines work", "What's a good name for a cat?"];
for (const q of [...LOOP_SCENARIOS.map((s) => s.askBefore), ...everyday]) {
  const [qv] = await (emb as any).embedQueries ? await (emb as any).embedQueries([q]) : await emb.embedDocuments([q]);
  const c = fv.map((v) => cos(qv, v));
  const order = c.map((x, i) => [x, i] as const).sort((a, b) => b[0] - a[0]);
  const mean = c.reduce((a, b) => a + b, 0) / c.length; const sd = Math.sqrt(c.reduce((a, b) => a + (b - mean) ** 2, 0) / c.length);
  const sc = LOOP_SCENARIOS.find((s) => s.askBefore === q);
  const right = sc ? facts.indexOf(sc.state.fact) : -1;
  const z = (order[0]![0] - mean) / sd; const gap = order[0]![0] - order[1]![0];
  if (sc) { if (order[0]![1] === right) top1++; zs.push(z); } else zw.push(z);
  console.log(`${(sc?.topic ?? "EVERYDAY").padEnd(10)} top=${order[0]![1] === right ? "RIGHT" : "wrong"} c1=${order[0]![0].toFixed(2)} c2=${order[1]![0].toFixed(2)} rightc=${right >= 0 ? c[right]!.toFixed(2) : "-"} z=${z.toFixed(2)} gap=${gap.toFixed(2)}`);
}
console.log({ top1 });
