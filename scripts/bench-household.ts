/**
 * `npm run bench:household`: a household server's turn recall with several people chatting at once
 * (issue 32): p95 of the chat turn's recall (query embedding, hybrid search, confidence, packing —
 * `recallForPrompt`, what a person waits for before the provider is asked) for one person alone, then for
 * `--people` people each running turns at the same time in their own `personal` space, in one process as
 * the server runs them. Prints JSON; `ratioP95` = together / alone (target ≤ 1.5 for 4 people).
 *
 *   npm run bench:household -- [--people 4] [--memories 2000] [--turns 30] [--gap-ms 2000]
 *
 * People chatting wait for each reply before the next message: `--gap-ms` is the time between one
 * person's turns (the reply's streaming and reading; uniform in 0.5–1.5× so the people drift apart). The
 * JSON also gives `saturated`: every person firing turns back to back with no gap, the worst case, where
 * on a machine of few cores each recall waits for the others' CPU work.
 *
 * Every person's memories are written as that person (server/core/acting.ts), with the bundled offline
 * embedding model on the supervised embedding server, in a fresh temporary data folder. Each recall is also
 * checked to hold only the acting person's memories (the run fails otherwise).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

// stdout is for the JSON result only.
console.log = console.info = (...a: unknown[]) => console.error(...a);

const { values } = parseArgs({
  options: {
    people: { type: "string", default: "4" },
    memories: { type: "string", default: "2000" },
    turns: { type: "string", default: "30" },
    "gap-ms": { type: "string", default: "2000" },
  },
});
const PEOPLE = Math.max(2, Number(values.people));
const MEMORIES = Math.max(10, Number(values.memories));
const TURNS = Math.max(3, Number(values.turns));
const GAP_MS = Math.max(0, Number(values["gap-ms"]));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-household-"));
process.env.MEMO_DATA_DIR = dataDir;
process.env.MEMO_OFFLINE = "1";

const { addMemories } = await import("../server/memory/store/add");
const { appContext } = await import("../server/context");
const { recallForPrompt } = await import("../server/chat/turn-recall");
const { getEmbedder } = await import("../server/embedder/supervisor");
const { createPerson, OWNER_ID } = await import("../server/auth/people");
const { hashPassword } = await import("../server/auth/password");
const { mySpace, runAs } = await import("../server/core/acting");

const TOPICS = ["garden", "car", "dentist", "birthday", "holiday", "project", "recipe", "book", "flight", "budget"];
const VERBS = ["planned", "talked about", "booked", "forgot", "finished", "started", "moved", "changed"];
const QUESTIONS = [
  "What did I say about the dentist appointment?",
  "Which recipe did I want to try this weekend?",
  "What was the budget we agreed for the holiday?",
  "Remind me what happened with the car repair",
  "What book was I reading last month?",
  "When is the flight I booked?",
];

function quantiles(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, p50: r(q(0.5)), p95: r(q(0.95)), max: r(s.at(-1)!) };
}

const memo = appContext();
const people: { id: string; admin: boolean }[] = [{ id: OWNER_ID, admin: true }];
const hash = await hashPassword("bench household password");
for (let i = 1; i < PEOPLE; i++) {
  const p = createPerson(memo.db, { name: `Person ${i}`, login: `person${i}`, passwordHash: hash, role: "member" });
  people.push({ id: p.id, admin: false });
}

const t0 = performance.now();
for (const [n, p] of people.entries()) {
  await runAs({ personId: p.id, admin: p.admin }, async () => {
    const space = mySpace("personal");
    const items = Array.from({ length: MEMORIES }, (_, i) => ({
      text: `On day ${i} person ${n} ${VERBS[i % VERBS.length]} the ${TOPICS[(i + n) % TOPICS.length]}; note ${(i * 7919 + n) % 1000}.`,
      space,
      timestamp: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    }));
    for (let i = 0; i < items.length; i += 200) await addMemories(memo, items.slice(i, i + 200));
  });
}
console.error(
  `[household] ${PEOPLE} people × ${MEMORIES} memories written in ${(performance.now() - t0).toFixed(0)} ms`,
);

/** Each turn as its person; fails the run if a recalled memory is not that person's. */
async function turns(p: { id: string; admin: boolean }, n: number, offset: number, gapMs = 0): Promise<number[]> {
  return runAs({ personId: p.id, admin: p.admin }, async () => {
    const space = mySpace("personal");
    const own = new Set(
      (memo.db.prepare("SELECT id FROM memories WHERE space_id = ?").all(space) as { id: string }[]).map((r) => r.id),
    );
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      // A fixed-seed jitter per person and turn, so runs are comparable.
      if (gapMs > 0)
        await new Promise((r) => setTimeout(r, gapMs * (0.5 + (((i + 1) * 7919 + offset * 104729) % 1000) / 1000)));
      const query = QUESTIONS[(i + offset) % QUESTIONS.length]!;
      const t = performance.now();
      const r = await recallForPrompt(memo, { space, query, context: [] }, { promote: false });
      ms.push(performance.now() - t);
      const foreign = r.memories.filter((m) => !own.has(m.id));
      if (foreign.length) throw new Error(`${p.id} recalled ${foreign.length} memories of another person`);
    }
    return ms;
  });
}

// Warm-up (model load, JIT, the ANN indexes), not counted.
for (const p of people) await turns(p, 2, 0);
const alone = await turns(people[0]!, TURNS, 0);
const together = (await Promise.all(people.map((p, i) => turns(p, TURNS, i, GAP_MS)))).flat();
const saturated = (await Promise.all(people.map((p, i) => turns(p, TURNS, i)))).flat();
const a = quantiles(alone);
const b = quantiles(together);
const c = quantiles(saturated);
process.stdout.write(
  `${JSON.stringify(
    {
      people: PEOPLE,
      memoriesPerPerson: MEMORIES,
      turnsPerPerson: TURNS,
      gapMs: GAP_MS,
      cpus: os.cpus().length,
      loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
      aloneRecallMs: a,
      togetherRecallMs: b,
      ratioP95: Math.round((b.p95 / Math.max(a.p95, 0.001)) * 100) / 100,
      ratioP50: Math.round((b.p50 / Math.max(a.p50, 0.001)) * 100) / 100,
      saturated: { recallMs: c, ratioP95: Math.round((c.p95 / Math.max(a.p95, 0.001)) * 100) / 100 },
    },
    null,
    2,
  )}\n`,
);
await getEmbedder().stop?.();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
