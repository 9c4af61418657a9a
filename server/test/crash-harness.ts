/**
 * TEST HARNESS (a process for server/ops/crash-safety.test.ts): the app without its HTTP layer. It runs
 * the real start-up (server/boot.ts: store + migrations, supervised embedding server with the bundled
 * model, ANN index, ingestion queue with recovery, chat persistence recovery, job scheduler, SIGTERM
 * shutdown) and then drives writes through the real services, seeded:
 *
 *   chat turns (runTurn against the configured OpenAI-compatible provider, a fixture in the test) whose
 *   exchanges the persistence queue writes as memories · /remember · added near-duplicate pairs ·
 *   document ingestion (addDocument → queue) · consolidation runs merging the pairs (the provider merges) ·
 *   pairs of documents sharing a section (so chunks linked to both), the first deleted once both are done ·
 *   undo of a consolidation run · facts learned from /remember memories, some replacing earlier ones.
 *
 * Every write is acknowledged on stdout AFTER the call that made it returned (so after its commit), one
 * line each: `ACK {"t":"remember","ids":[…]}`. The test kills this process with SIGKILL at random
 * moments and checks that everything acknowledged is still there and nothing is half-written.
 *
 *   --seed N          workload seed
 *   --die-at SQL|N    SIGKILL itself on the N-th run of a statement whose SQL contains SQL (a kill INSIDE a
 *                     write transaction); prints `DYING {…}` first with what it was writing. SQL|N|soft-deleted:
 *                     the N-th run on a memory that is soft-deleted (a restore)
 *   --embed-url URL   use this already running embedding server (the real one, shared by several lives
 *                     to save its start-up time) instead of starting a supervised one
 *   --drain           no new work: finish what recovery queued (documents, exchanges), print `DRAINED`,
 *                     then wait for SIGTERM
 *   --scenario NAME   instead of the random workload, one sequence, then `DRAINED` and wait:
 *                     `share-delete` (two documents sharing chunks ingested, then the first deleted) or
 *                     `undo` (a near-duplicate pair added, consolidated, then the run undone) or
 *                     `facts` (a memory, a fact from it, then a fact replacing that one) or
 *                     `import` (a ChatGPT export queued as an import job, then waited for; a later life resumes it)
 *
 * Environment: MEMO_DATA_DIR, MEMO_EMBED_MODEL=use-lite, MEMO_PROVIDER=openai, MEMO_OPENAI_BASE_URL, MEMO_OPENAI_MODEL.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import type Database from "better-sqlite3";

const t0 = performance.now();
const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "1" },
    "die-at": { type: "string" },
    drain: { type: "boolean", default: false },
    "embed-url": { type: "string" },
    scenario: { type: "string" },
  },
});

const out = (line: string) => fs.writeSync(1, `${line}\n`); // synchronous: on the pipe before the next step
const ack = (t: string, data: Record<string, unknown>) => out(`ACK ${JSON.stringify({ t, ...data })}`);

// The embedding server first: its model loads while the rest of the app is imported.
const { getEmbedder, setEmbedder } = await import("../embedder/supervisor");
const embedUrl = values["embed-url"];
if (embedUrl) {
  // A server this process does not own: what the app asks of its supervisor, answered for that URL.
  const status = {
    status: "ready",
    model: "universal-sentence-encoder-lite",
    dim: 512,
    engine: "shared (test)",
    baseUrl: embedUrl,
    pid: null,
    restarts: 0,
    lastError: null,
    modelReason: "shared by the crash test",
    fallback: true,
  };
  setEmbedder({
    pid: null,
    start() {},
    status: () => status,
    ensureHealthy: async () => embedUrl,
    reportFailure() {},
    stop: async () => {},
  } as unknown as import("../embedder/supervisor").EmbedderSupervisor);
}
const sup = getEmbedder();
out(`SPAWNED ${JSON.stringify({ embedderPid: sup.pid })}`);
const { getDb } = await import("../db");
const { sqlite } = getDb();

if (values["die-at"]) {
  // Wrap prepare() so that the N-th run of the chosen statement kills the process mid-transaction.
  // `SQL|N|soft-deleted`: count only runs on a memory that is soft-deleted (a restore, not an insert).
  const [needle, nth, only] = values["die-at"].split("|") as [string, string, string | undefined];
  let runs = 0;
  const prepare = sqlite.prepare.bind(sqlite);
  (sqlite as unknown as { prepare: Database.Database["prepare"] }).prepare = ((sql: string) => {
    const st = prepare(sql);
    if (!sql.includes(needle)) return st;
    const run = st.run.bind(st);
    (st as unknown as { run: (...a: unknown[]) => unknown }).run = (...args: unknown[]) => {
      // The memory a rid-keyed statement touches, as it was before: a rolled-back write must leave it so.
      const beforeOf = () => {
        const rid = typeof args[0] === "bigint" ? Number(args[0]) : typeof args[1] === "number" ? args[1] : null;
        const row =
          rid === null
            ? undefined
            : (prepare("SELECT soft_deleted AS sd FROM memories WHERE rid = ?").get(rid) as { sd: number } | undefined);
        return row ? row.sd : null;
      };
      if (only === "soft-deleted" && beforeOf() !== 1) return run(...args);
      if (++runs === Number(nth)) {
        const inTx = sqlite.inTransaction;
        const before = beforeOf();
        const r = run(...args); // the statement itself happens, its transaction never commits
        out(
          `DYING ${JSON.stringify({ sql: sql.replace(/\s+/g, " ").slice(0, 80), args: JSON.parse(JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? Number(v) : Buffer.isBuffer(v) ? "<blob>" : v))), inTx, before })}`,
        );
        process.kill(process.pid, "SIGKILL");
        return r;
      }
      return run(...args);
    };
    return st;
  }) as Database.Database["prepare"];
}

const { boot } = await import("../boot");
boot();
// boot() installed the app's graceful shutdown; the workload below stops starting new writes on SIGTERM too.
let stopping = false;
process.on("SIGTERM", () => (stopping = true));
const { addMemories, remember } = await import("../memory/store/add");
const { appContext } = await import("../context");
const { persistQueue } = await import("../chat/exchange-queue");
const { runTurn } = await import("../chat/turn");
const { addDocument, deleteDocument } = await import("../services/document-service");
const { undoConsolidationRun } = await import("../jobs/consolidation-runs");
const { queueFor } = await import("../ingest/queue");
const { runJobNow } = await import("../jobs/jobs");
const { englishText } = await import("./english-text");
const { beginRequest } = await import("../ops/inflight");
const { createRng } = await import("./retrieval-eval/rng");
const { addFacts } = await import("../services/facts-service");

const ctx = appContext();
await sup.ensureHealthy(30_000);
out(`READY ${JSON.stringify({ pid: process.pid, embedderPid: sup.pid, ms: Math.round(performance.now() - t0) })}`);

const SPACE = "crash";
const rng = createRng(`crash-${values.seed}`);
const tag = () => `${values.seed}-${rng.int(0, 1e9).toString(36)}`;
const fail = (what: string, e: unknown) =>
  out(`ERR ${JSON.stringify({ what, error: e instanceof Error ? e.message : String(e) })}`);

if (values.scenario === "share-delete") {
  const t = tag();
  const common = `# Shared ${t}\n\n${englishText(5000, `${t}-shared`)}`;
  const a = await addDocument(
    ctx,
    `shared-a-${t}.md`,
    Buffer.from(`${common}\n\n# Only a\n\n${englishText(500, `${t}-a`)}`),
    SPACE,
  );
  const b = await addDocument(
    ctx,
    `shared-b-${t}.md`,
    Buffer.from(`${common}\n\n# Only b\n\n${englishText(500, `${t}-b`)}`),
    SPACE,
  );
  await queueFor(ctx).whenIdle();
  ack("doc", { id: a.id, status: "done" });
  ack("doc", { id: b.id, status: "done" });
  ack("pair", { a: a.id, b: b.id });
  await deleteDocument(ctx, a.id);
  ack("docdel", { id: a.id, other: b.id });
  out("DRAINED");
} else if (values.scenario === "undo") {
  const base = `Note ${tag()}: my sister Ana in Graz keeps two rabbits and feeds them at dawn`;
  const ids = await addMemories(ctx, [
    { text: base, space: `undo-${values.seed}` },
    { text: `${base} without fail`, space: `undo-${values.seed}` },
  ]);
  ack("add", { ids: ids.flat() });
  const run = await runJobNow(ctx, "consolidate", { trigger: "manual" });
  const merges = (run.result?.merges ?? []) as { id: string; from: [string, string] }[];
  ack("merge", { run: run.id, merges: merges.map((m) => ({ id: m.id, from: m.from })) });
  const u = undoConsolidationRun(ctx, run.id);
  ack("undo", { run: u.run, removed: u.removed, restored: u.restored });
  out("DRAINED");
} else if (values.scenario === "facts") {
  const space = `facts-${values.seed}`;
  const [[m]] = await addMemories(ctx, [{ text: `Note ${tag()}: we moved to Graz last spring`, space }]);
  ack("add", { ids: [m] });
  const [first] = await addFacts(ctx, space, [{ text: `Lives in Graz (${tag()})`, sources: [m!] }], "learned");
  ack("fact", { id: first });
  const [second] = await addFacts(
    ctx,
    space,
    [{ text: `Lives in Vienna (${tag()})`, sources: [m!], replaces: [first!] }],
    "learned",
  );
  ack("fact", { id: second, replaces: first });
  out("DRAINED");
} else if (values.scenario === "import") {
  // A ChatGPT export queued once (its job and file outlive the process); every life then waits for the
  // job — the one after a kill resumes it at start-up from its stored cursor.
  const { writeExport } = await import("./export-generator");
  const { queueImportFile, tempImportPath } = await import("./import-jobs");
  const { waitForImport } = await import("../services/import-jobs");
  const { importedMemoriesOf } = await import("../services/import/job-rows");
  const space = "import-crash";
  const known = ctx.db.prepare("SELECT id FROM import_jobs WHERE space = ? ORDER BY queued_at LIMIT 1").get(space) as
    | { id: string }
    | undefined;
  let jobId = known?.id;
  if (!jobId) {
    const file = tempImportPath("crash");
    // 3 exchanges a conversation: batches (8 chunks, then 32) end inside conversations.
    writeExport(file, "chatgpt", { exchanges: 240, perConversation: 3 });
    jobId = queueImportFile(ctx, "chatgpt", file, space).id;
    ack("importjob", { id: jobId, exchanges: 240 });
  }
  // What each committed batch wrote, acknowledged as it appears in the store.
  const acked = new Set<string>();
  const poll = () => {
    const fresh = importedMemoriesOf(ctx.db, jobId!).filter((id) => !acked.has(id));
    for (const id of fresh) acked.add(id);
    if (fresh.length) ack("add", { ids: fresh });
  };
  const timer = setInterval(poll, 20);
  const done = await waitForImport(ctx.db, jobId);
  clearInterval(timer);
  poll();
  ack("imported", { id: jobId, status: done.status, imported: done.imported, duplicates: done.duplicates });
  out("DRAINED");
} else if (values.drain) {
  // Recovery (boot) queued the unfinished documents and unpersisted exchanges: wait for them.
  await queueFor(ctx).whenIdle();
  await persistQueue().drain();
  out("DRAINED");
} else {
  const PEOPLE = ["Carla", "Tomas", "Ines", "Oskar", "Mei", "Joao", "Lena", "Ravi"];
  const PETS = ["three grey cats", "a parrot named Kiwi", "an old beagle", "two rabbits", "a tank of goldfish"];
  const CITIES = ["Porto", "Ghent", "Lyon", "Bergen", "Graz", "Utrecht"];

  // The persistence queue, with an acknowledgement when an exchange became memories.
  const appQueue = persistQueue();
  const ackingQueue = {
    enqueue: (job: Parameters<typeof appQueue.enqueue>[0]) => {
      const p = appQueue.enqueue(job);
      void p.then((ids) => ids && ack("persisted", { ids, conversationId: job.conversationId }));
      return p;
    },
  } as unknown as typeof appQueue;

  const backlog = () =>
    (
      ctx.db.prepare("SELECT count(*) AS n FROM documents WHERE status IN ('queued', 'processing')").get() as {
        n: number;
      }
    ).n;
  const lanes: Record<string, () => Promise<void>> = {
    async chat() {
      const who = rng.pick(PEOPLE);
      const message = `${tag()}: ${who} told me the train to ${rng.pick(CITIES)} leaves at ${rng.int(5, 22)}:${String(rng.int(0, 59)).padStart(2, "0")}`;
      let conversationId = "";
      let userMessageId = "";
      // tracked like the chat route does, so a graceful shutdown waits for the turn (or stops it)
      const inflight = beginRequest();
      try {
        for await (const ev of runTurn(
          { memo: ctx, persist: ackingQueue, signal: inflight.signal },
          { space: SPACE, message },
        )) {
          if (ev.type === "start") [conversationId, userMessageId] = [ev.conversation.id, ev.userMessage.id];
          if (ev.type === "done") ack("chat", { conversationId, userMessageId, assistantMessageId: ev.message.id });
          if (ev.type === "error") fail("chat", ev.message);
        }
      } finally {
        inflight.end();
      }
    },
    async remember() {
      const r = await remember(
        ctx,
        `${tag()}: my ${rng.pick(["dentist", "plumber", "landlord"])} is ${rng.pick(PEOPLE)}, phone ${rng.int(100, 999)} ${rng.int(1000, 9999)}`,
        SPACE,
      );
      ack("remember", { ids: r.ids });
    },
    async fact() {
      // A fact learned from a /remember memory (pinned: nothing in this workload removes it), replacing the
      // newest current fact of the space half the time.
      const src = ctx.db
        .prepare(
          "SELECT id FROM memories WHERE space_id = ? AND kind = 'remember' AND soft_deleted = 0 ORDER BY rid DESC LIMIT 1",
        )
        .get(SPACE) as { id: string } | undefined;
      if (!src) return;
      const old = rng.int(0, 1)
        ? (ctx.db
            .prepare(
              "SELECT id FROM facts WHERE space_id = ? AND deleted_at IS NULL AND superseded_by IS NULL ORDER BY rid DESC LIMIT 1",
            )
            .get(SPACE) as { id: string } | undefined)
        : undefined;
      const [id] = await addFacts(
        ctx,
        SPACE,
        [
          {
            text: `${tag()}: ${rng.pick(PEOPLE)} lives in ${rng.pick(CITIES)}`,
            sources: [src.id],
            replaces: old ? [old.id] : undefined,
          },
        ],
        "learned",
      );
      ack("fact", { id, replaces: old?.id });
    },
    async pair() {
      const who = rng.pick(PEOPLE);
      const base = `Note ${tag()}: my neighbour ${who} in ${rng.pick(CITIES)} keeps ${rng.pick(PETS)} and waters the garden every ${rng.pick(["morning", "evening"])}`;
      const ids = await addMemories(ctx, [
        { text: base, space: SPACE },
        { text: `${base} without fail`, space: SPACE },
      ]);
      ack("add", { ids: ids.flat() });
    },
    async ingest() {
      const bytes = Buffer.from(`# Notes ${tag()}\n\n${englishText(rng.int(2_000, 7_000), tag())}`);
      const row = await addDocument(ctx, `notes-${tag()}.md`, bytes, SPACE);
      ack("doc", { id: row.id, status: row.status });
    },
    async consolidate() {
      const run = await runJobNow(ctx, "consolidate", { trigger: "manual" });
      const merges = (run.result?.merges ?? []) as { id: string; from: [string, string] }[];
      if (merges.length) ack("merge", { run: run.id, merges: merges.map((m) => ({ id: m.id, from: m.from })) });
      if (run.status === "failed") fail("consolidate", run.error);
    },
    async share() {
      // A pair from an earlier life whose documents are both done: delete the first (its shared chunks stay with the second).
      const pair = ctx.db
        .prepare(
          `SELECT a.id AS a, b.id AS b FROM documents a JOIN documents b ON b.name = replace(a.name, 'shared-a-', 'shared-b-')
            WHERE a.name LIKE 'shared-a-%' AND a.status = 'done' AND b.status = 'done' AND a.space_id = ? LIMIT 1`,
        )
        .get(SPACE) as { a: string; b: string } | undefined;
      if (pair) {
        // Said before: the delete commits, then removes the kept file (an await), and a kill in between
        // leaves the document gone with no `docdel` said.
        ack("docdel-start", { id: pair.a, other: pair.b });
        await deleteDocument(ctx, pair.a);
        ack("docdel", { id: pair.a, other: pair.b });
      }
      if (backlog() >= 6) return; // (the pairs need their turn in the queue; shared deletes are also a scenario below)
      const t = tag();
      const common = `# Shared ${t}\n\n${englishText(rng.int(3000, 4000), `${t}-shared`)}`;
      for (const side of ["a", "b"]) {
        const row = await addDocument(
          ctx,
          `shared-${side}-${t}.md`,
          Buffer.from(`${common}\n\n# Only ${side} ${t}\n\n${englishText(rng.int(200, 400), `${t}-${side}`)}`),
          SPACE,
        );
        ack("doc", { id: row.id, status: row.status });
      }
    },
    async undo() {
      // The newest consolidation run that can still be undone.
      const r = ctx.db
        .prepare(
          `SELECT id FROM job_runs WHERE job = 'consolidate' AND status = 'ok' AND json_extract(result, '$.undone') IS NULL
             AND json_array_length(json_extract(result, '$.merges')) > 0 ORDER BY id DESC LIMIT 1`,
        )
        .get() as { id: number } | undefined;
      if (!r) return;
      const u = undoConsolidationRun(ctx, r.id);
      ack("undo", { run: u.run, removed: u.removed, restored: u.restored });
    },
  };
  // Consolidation over the 16 most recent memories: short runs, whose merges are acknowledged before the next kill.
  const { saveJobSettings } = await import("../jobs/settings");
  saveJobSettings(ctx.db, { consolidate: { maxPerSpace: 16 } });
  const pace: Record<string, [number, number]> = {
    chat: [0, 60],
    remember: [20, 120],
    fact: [40, 200],
    pair: [20, 120],
    ingest: [200, 700],
    consolidate: [150, 500],
    share: [300, 900],
    undo: [400, 1200],
  };
  for (const [name, fn] of Object.entries(lanes)) {
    void (async () => {
      for (;;) {
        await new Promise((r) => setTimeout(r, rng.int(...pace[name]!)));
        if (stopping) return;
        try {
          await fn();
        } catch (e) {
          fail(name, e);
        }
      }
    })();
  }
}
