/**
 * `npm run bench:chat`: time to first token of a chat turn WITH memory (store the user message, build the
 * queries, embed them, hybrid search, pack, then the provider's first token) against the provider's own
 * time to first token for the same prompt, measured in the same run. Prints JSON (medians, p95).
 *
 *   npm run bench:chat -- [--runs 20] [--memories 500] [--provider fixture,llama] [--first-token-ms 0]
 *
 * Everything is real except the OpenAI-compatible provider when "fixture" is chosen (the e2e test double,
 * e2e/support/openai-fixture.ts; --first-token-ms adds a simulated model delay). "llama" is the tiny
 * generated chat GGUF on the supervised local llama.cpp server. The store is a fresh temporary data folder
 * with the supervised embedding server (the bundled offline model unless MEMO_EMBED_MODEL is set).
 * Persistence is drained between turns so it never overlaps a measurement.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

// stdout is for the JSON result only.
console.log = console.info = (...a: unknown[]) => console.error(...a);

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    memories: { type: "string", default: "500" },
    provider: { type: "string", default: "fixture,llama" },
    "first-token-ms": { type: "string", default: "0" },
    keep: { type: "boolean", default: false },
  },
});
const RUNS = Math.max(1, Number(values.runs));
const MEMORIES = Math.max(0, Number(values.memories));
const PROVIDERS = values.provider
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-chat-"));
process.env.MEMO_DATA_DIR = dataDir;
process.env.MEMO_OFFLINE = "1";
process.env.MEMO_CHAT_THREADS ??= "1";
for (const k of [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_CHAT_MODEL",
])
  delete process.env[k];

const { OpenAIFixtureServer, FIXTURE_MODEL } = await import("../e2e/support/openai-fixture");
const { writeTinyLlamaGguf } = await import("../server/test/gguf/write-tiny-llama");
const { addMemories } = await import("../server/memory/store/add");
const { appContext } = await import("../server/context");
const { PersistQueue } = await import("../server/chat/exchange-queue");
const { getProvider, resetProviderSettings, saveProviderSettings } = await import("../server/chat/providers");
const { runTurn, systemPrompt } = await import("../server/chat/turn");
const { recallForPrompt } = await import("../server/chat/turn-recall");
const { stopLocalChatServer } = await import("../server/chat/local-server");
const { getEmbedder } = await import("../server/embedder/supervisor");

const SPACE = "bench";
const TOPICS = [
  "garden",
  "car",
  "dentist",
  "birthday",
  "holiday",
  "project",
  "recipe",
  "book",
  "flight",
  "budget",
  "piano",
  "running",
  "office",
  "cat",
  "dog",
];
const VERBS = [
  "planned",
  "talked about",
  "booked",
  "forgot",
  "finished",
  "started",
  "moved",
  "changed",
  "cancelled",
  "remembered",
];
const QUESTIONS = [
  "What did I say about the dentist appointment?",
  "When is my sister's birthday party again?",
  "Which recipe did I want to try this weekend?",
  "What was the budget we agreed for the holiday?",
  "Remind me what happened with the car repair",
  "What book was I reading last month?",
];

function quantiles(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    p50: r(q(0.5)),
    p95: r(q(0.95)),
    min: r(s[0]!),
    max: r(s.at(-1)!),
    mean: r(s.reduce((a, b) => a + b, 0) / s.length),
  };
}

const memo = appContext();
const queue = new PersistQueue(() => memo, { log: (l, m) => l !== "info" && console.error(`[persist] ${m}`) });

async function seed(): Promise<number> {
  const items = Array.from({ length: MEMORIES }, (_, i) => ({
    text: `On day ${i} I ${VERBS[i % VERBS.length]} the ${TOPICS[i % TOPICS.length]} with ${["Anna", "Ben", "Chloe", "Dev"][i % 4]}; note ${(i * 7919) % 1000}.`,
    space: SPACE,
    timestamp: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
  }));
  for (let i = 0; i < items.length; i += 100) await addMemories(memo, items.slice(i, i + 100));
  return items.length;
}

async function measureProvider(kind: string): Promise<Record<string, unknown>> {
  const provider = getProvider(memo.db);
  const turnTtft: number[] = [];
  const providerTtft: number[] = [];
  const recall: number[] = [];
  const recalled: number[] = [];
  // One warm-up of each path (model load, connections, JIT), not counted.
  const turn = async (message: string) => {
    // The turn, from sending the message to its first streamed token.
    const t0 = performance.now();
    let first: number | null = null;
    let recallMs = 0;
    let n = 0;
    for await (const ev of runTurn({ memo, persist: queue }, { message, space: SPACE })) {
      if (ev.type === "recall") {
        recallMs = ev.ms;
        n = ev.memories.length;
      }
      if (ev.type === "delta" && first === null) first = performance.now() - t0;
      if (ev.type === "error") throw new Error(`turn failed: ${ev.message}`);
    }
    await queue.drain();
    return { first: first!, recallMs, n };
  };
  const alone = async (message: string) => {
    // The provider alone, same prompt shape (system prompt with the memory block + the message).
    const { block } = await recallForPrompt(memo, { space: SPACE, query: message, context: [] });
    const messages = [
      { role: "system" as const, content: systemPrompt(block) },
      { role: "user" as const, content: message },
    ];
    const t1 = performance.now();
    let pFirst: number | null = null;
    for await (const _ of provider.stream(messages)) {
      if (pFirst === null) pFirst = performance.now() - t1;
    }
    return pFirst!;
  };
  for (let i = -1; i < RUNS; i++) {
    const message = QUESTIONS[(i + QUESTIONS.length) % QUESTIONS.length]!;
    // Alternate which goes first: a local server reuses the cached prompt prefix of the request before.
    let t: Awaited<ReturnType<typeof turn>>;
    let p: number;
    if (i % 2 === 0) {
      t = await turn(message);
      p = await alone(message);
    } else {
      p = await alone(message);
      t = await turn(message);
    }
    if (i < 0) continue;
    turnTtft.push(t.first);
    providerTtft.push(p);
    recall.push(t.recallMs);
    recalled.push(t.n);
  }
  const t = quantiles(turnTtft);
  const p = quantiles(providerTtft);
  return {
    provider: kind,
    model: provider.model,
    runs: RUNS,
    turnFirstTokenMs: t,
    providerFirstTokenMs: p,
    recallMs: quantiles(recall),
    memoriesRecalledPerTurn: quantiles(recalled).p50,
    overheadMsP50: Math.round((t.p50 - p.p50) * 10) / 10,
    ratioP50: Math.round((t.p50 / Math.max(p.p50, 0.001)) * 100) / 100,
  };
}

const results: Record<string, unknown>[] = [];
let fixture: Awaited<ReturnType<typeof OpenAIFixtureServer.start>> | undefined;
try {
  await getEmbedder().ensureHealthy(120_000);
  const seeded = await seed();
  console.error(`[bench-chat] seeded ${seeded} memories in space '${SPACE}'`);
  for (const kind of PROVIDERS) {
    resetProviderSettings(memo.db);
    if (kind === "fixture") {
      fixture = await OpenAIFixtureServer.start({ firstTokenMs: Number(values["first-token-ms"]) });
      saveProviderSettings(memo.db, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
    } else if (kind === "llama") {
      const gguf = path.join(dataDir, "models", "chat", "tiny-llama-chat-test.gguf");
      // Its vocabulary is tiny (most words become many tokens): give it room for the memory block.
      writeTinyLlamaGguf(gguf, { contextLength: 16384 });
      process.env.MEMO_CHAT_CTX = "16384";
      saveProviderSettings(memo.db, { active: "llama", llama: { modelPath: gguf }, maxTokens: 8 });
    } else throw new Error(`unknown provider '${kind}' (fixture or llama)`);
    console.error(`[bench-chat] measuring ${kind} (${RUNS} runs)`);
    results.push(await measureProvider(kind));
  }
  const embedder = getEmbedder().status();
  process.stdout.write(
    `${JSON.stringify(
      {
        bench: "chat time to first token: memory on (whole turn) vs the provider alone",
        when: new Date().toISOString(),
        node: process.version,
        cpus: os.availableParallelism(),
        embedder: { model: embedder.model, engine: embedder.engine },
        memories: MEMORIES,
        results,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await fixture?.close();
  await stopLocalChatServer();
  await getEmbedder().stop();
  if (!values.keep) fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
