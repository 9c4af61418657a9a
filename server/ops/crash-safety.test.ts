/**
 * Crash safety (docs/architecture.md#access-and-security, issue 8 item 1): the app's start-up and write paths in a child process
 * (server/test/crash-harness.ts: server/boot.ts + chat turns against an OpenAI-compatible fixture, their
 * persistence queue, /remember, added memories, document ingestion, consolidation merges), killed with
 * SIGKILL over and over — at seeded random moments, and from inside write transactions (the harness
 * kills itself on the N-th run of a chosen INSERT/UPDATE/DELETE) — and restarted on the same data folder.
 *
 * After every kill, on the store as the dead process left it:
 *  - checkInvariant() is empty (live rows of memories, memory_vec and the keyword tables correspond one to one);
 *  - every write acknowledged before the kill is there (memories, chat messages, document rows, merges:
 *    the merged memory exists and both originals are soft-deleted);
 *  - a transaction the process died inside left nothing (the row it was inserting is absent, the memory
 *    it was soft-deleting is still live);
 *  - a document is `done` with all its chunks, `failed`/`cancelled` with none, or still `queued` /
 *    `processing` (resumed at the next start);
 *  - the supervised embedding server of the killed process exits too (it follows its parent's pipe).
 * At the end a last start with no new work lets recovery finish, and is stopped with SIGTERM: every
 * document is then done or failed, and every acknowledged chat reply became a memory.
 *
 *   MEMO_CRASH_KILLS=30 MEMO_CRASH_SEED=… node --import tsx --test server/ops/crash-safety.test.ts
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { exchangePersisted } from "../chat/exchange-queue";
import { checkInvariant } from "../memory/store";
import { type BundledHarness, bundleHarness } from "../test/bundle-harness";
import { FixtureChatServer } from "../test/fixture-chat-server";
import { createRng } from "../test/retrieval-eval/rng";

const KILLS = Number(process.env.MEMO_CRASH_KILLS ?? 30);
const SEED = process.env.MEMO_CRASH_SEED ?? "memo-crash-1";
const HARNESS = path.join(process.cwd(), "server", "test", "crash-harness.ts");
/** The provider key the app runs with: it must never appear in its logs. */
const SECRET = "sk-crash-test-SECRET-51c2e9d7";

/** Statements the harness may die inside (SQL substrings), all run inside a write transaction or as one. */
const DIE_POINTS = [
  'INSERT INTO "kw_m_', // insertMemories: the memory and its vector are in, the FTS row goes in, no commit
  "INSERT INTO memory_vec (", // insertMemories / restore
  "UPDATE memories SET soft_deleted = 1", // consolidation's transaction: merged memory written, originals half soft-deleted
  'DELETE FROM "kw_m_', // the same transaction, one step earlier
  "INSERT INTO messages", // a chat message pair
  "UPDATE documents SET", // ingestion progress / status
  "INSERT INTO documents", // an upload's rows
  "DELETE FROM document_chunks WHERE document_id", // deleting a document with shared chunks (or settling a failed one)
  "json_set(result, '$.undone'", // the last statement of a consolidation undo's transaction
  'INSERT INTO "kw_f_', // insertFacts: the fact, its sources and vector are in, its keyword row goes in, no commit
];

let fixture: FixtureChatServer;
let dataDir: string;
/** The harness compiled once for the file's 40 starts (server/test/bundle-harness.ts says why). */
let harness: BundledHarness;
/**
 * The real embedding server (bundled model), started once and shared by most lives to save its start-up
 * time; every 4th life starts its own under the real supervisor instead (and must take it down when killed).
 */
let shared: ChildProcess;
let sharedUrl: string;

before(async () => {
  harness = await bundleHarness(HARNESS);
  fixture = await FixtureChatServer.start();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-crash-"));
  shared = spawn(
    process.execPath,
    ["--import", "tsx", path.join(process.cwd(), "server", "embedder", "main.ts"), "--port", "0", "--watch-stdin"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  sharedUrl = await new Promise<string>((resolve, reject) => {
    let port = 0;
    readline.createInterface({ input: shared.stdout! }).on("line", (l) => {
      if (l.includes('"listening"')) port = (JSON.parse(l) as { port: number }).port;
      if (l.includes('"ready"')) resolve(`http://127.0.0.1:${port}`);
    });
    shared.once("exit", () => reject(new Error("the shared embedding server exited")));
  });
});
after(async () => {
  shared.kill("SIGTERM");
  await fixture.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  harness?.dispose();
});

interface Ack {
  t: string;
  [k: string]: unknown;
}

interface Run {
  acks: Ack[];
  /** `before`: soft_deleted of the memory the statement touched, before it ran (null: no such memory yet). */
  dying: { sql: string; args: unknown[]; inTx: boolean; before?: number | null } | null;
  errors: string[];
  ready: { pid: number; embedderPid: number | null; ms: number } | null;
  embedderPid: number | null;
  drained: boolean;
  /** The provider key was found in what the process logged. */
  secretInLog: boolean;
  signalledAt: number;
  exitedAt: number;
  signal: NodeJS.Signals | null;
  code: number | null;
  log: string[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"; // an orphaned zombie waiting for init counts as gone
  } catch {
    return process.platform !== "linux";
  }
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * One life of the harness: start it, and kill it `killAfterMs` after it is ready (unless it kills itself
 * first, or `drain` is set: then SIGTERM once it has drained).
 */
function live(opts: {
  seed: string;
  dieAt?: string;
  killAfterMs: number;
  drain?: boolean;
  scenario?: string;
  ownEmbedder?: boolean;
  signal?: NodeJS.Signals;
}): Promise<Run> {
  const args = [harness.file, "--seed", opts.seed];
  if (opts.scenario) {
    args.push("--scenario", opts.scenario);
    opts = { ...opts, drain: true }; // it says DRAINED when done (or dies inside a statement first)
  }
  if (!opts.ownEmbedder) args.push("--embed-url", sharedUrl);
  if (opts.dieAt) args.push("--die-at", opts.dieAt);
  if (opts.drain) args.push("--drain");
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      MEMO_DATA_DIR: dataDir,
      MEMO_EMBED_MODEL: "use-lite",
      MEMO_EMBED_PORT: "",
      MEMO_PROVIDER: "openai",
      MEMO_OPENAI_BASE_URL: fixture.url,
      MEMO_OPENAI_MODEL: fixture.model,
      MEMO_OPENAI_API_KEY: SECRET,
      MEMO_PROVIDER_TIMEOUT_SEC: "10",
    },
  });
  const run: Run = {
    acks: [],
    dying: null,
    errors: [],
    ready: null,
    embedderPid: null,
    drained: false,
    secretInLog: false,
    signalledAt: 0,
    exitedAt: 0,
    signal: null,
    code: null,
    log: [],
  };
  let timer: NodeJS.Timeout | undefined;
  const rl = readline.createInterface({ input: child.stdout! });
  rl.on("line", (line) => {
    const sp = line.indexOf(" ");
    const kind = sp > 0 ? line.slice(0, sp) : line;
    const data = sp > 0 ? line.slice(sp + 1) : "";
    if (kind === "ACK") run.acks.push(JSON.parse(data) as Ack);
    else if (kind === "DYING") run.dying = JSON.parse(data);
    else if (kind === "ERR") run.errors.push(data);
    else if (kind === "SPAWNED") run.embedderPid = (JSON.parse(data) as { embedderPid: number | null }).embedderPid;
    else if (kind === "READY") {
      run.ready = JSON.parse(data);
      clearTimeout(guard);
      // A draining life first finishes the documents earlier lives left queued (28–33 after the 30 kills):
      // the share-delete life took 20–38 s at load 6–10 and was cut at 60 s once at load 11.
      guard = setTimeout(() => child.kill("SIGKILL"), opts.drain ? 180_000 : 20_000);
      if (!opts.drain)
        timer = setTimeout(
          () => ((run.signalledAt = Date.now()), child.kill(opts.signal ?? "SIGKILL")),
          opts.killAfterMs,
        );
    } else if (kind === "DRAINED") {
      run.drained = true;
      run.signalledAt = Date.now();
      child.kill("SIGTERM");
    } else run.log.push(line);
  });
  child.stderr!.on("data", (d: Buffer) => run.log.push(d.toString()));
  // A start gets as long as a busy machine needs (a CI run saw 20 s pass at load 25 before READY); once ready,
  // a life is bounded as before. The guard is a safety net: a life normally ends by its own kill or SIGTERM.
  let guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const closed = new Promise<void>((r) => rl.once("close", r)); // the last lines may still be in the pipe at exit
  const leaked = () => run.log.some((l) => l.includes(SECRET));
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(guard);
      run.code = code;
      run.signal = signal;
      run.exitedAt = Date.now();
      void closed.then(() => {
        run.secretInLog = leaked();
        resolve(run);
      });
    });
  });
}

function openStore(): Database.Database {
  const db = new Database(path.join(dataDir, "memory", "memory.db"));
  sqliteVec.load(db);
  return db;
}

/** What every acknowledged write left, checked against the store. */
class Expected {
  memories = new Set<string>();
  merges: { id: string; from: [string, string]; run: number }[] = [];
  /** Documents deleted (their shared chunks must stay with `other`). */
  deletedDocs: { id: string; other: string }[] = [];
  messages = new Set<string>();
  chats: { conversationId: string; userMessageId: string; assistantMessageId: string }[] = [];
  documents = new Set<string>();
  /** Document deletes begun and not acknowledged (id → the document sharing its chunks). */
  deleting = new Map<string, string>();
  /** Acknowledged facts, with the fact each replaced (null: none). */
  facts = new Map<string, string | null>();
  counts: Record<string, number> = {};

  add(acks: Ack[]): void {
    for (const a of acks) {
      this.counts[a.t] = (this.counts[a.t] ?? 0) + 1;
      if (a.t === "remember" || a.t === "add" || a.t === "persisted")
        for (const id of a.ids as string[]) this.memories.add(id);
      if (a.t === "merge")
        for (const m of a.merges as { id: string; from: [string, string] }[])
          this.merges.push({ ...m, run: a.run as number });
      if (a.t === "docdel-start") this.deleting.set(a.id as string, a.other as string);
      if (a.t === "docdel") {
        this.deleting.delete(a.id as string);
        this.documents.delete(a.id as string);
        this.deletedDocs.push({ id: a.id as string, other: a.other as string });
      }
      if (a.t === "chat") {
        const c = a as unknown as Expected["chats"][number];
        this.chats.push(c);
        this.messages.add(c.userMessageId).add(c.assistantMessageId);
      }
      if (a.t === "doc") this.documents.add(a.id as string);
      if (a.t === "fact") this.facts.set(a.id as string, (a.replaces as string | undefined) ?? null);
    }
  }

  /** Problems found in the store (empty: all good). `final`: recovery has run to the end. */
  check(db: Database.Database, final = false): string[] {
    const problems: string[] = [...checkInvariant(db)];
    const hasMemory = db.prepare("SELECT soft_deleted AS sd FROM memories WHERE id = ?");
    for (const id of this.memories) if (!hasMemory.get(id)) problems.push(`acknowledged memory ${id} is missing`);
    // A run undone (acknowledged or not: the kill may fall between its commit and its ACK) is checked as
    // undone: its merged memories are gone. Merges built on those are no longer checked.
    const undoneRuns = new Set(
      (
        db
          .prepare("SELECT id FROM job_runs WHERE job = 'consolidate' AND json_extract(result, '$.undone') IS NOT NULL")
          .all() as { id: number }[]
      ).map((r) => r.id),
    );
    const undoneIds = new Set(this.merges.filter((m) => undoneRuns.has(m.run)).map((m) => m.id));
    for (const m of this.merges) {
      if (undoneRuns.has(m.run)) {
        if (hasMemory.get(m.id)) problems.push(`merge ${m.id} of undone run ${m.run} is still there`);
        continue;
      }
      if (m.from.some((f) => undoneIds.has(f))) continue;
      if (!hasMemory.get(m.id)) problems.push(`acknowledged merged memory ${m.id} is missing`);
      for (const f of m.from) {
        const r = hasMemory.get(f) as { sd: number } | undefined;
        if (r?.sd !== 1) problems.push(`merge ${m.id}: original ${f} is ${r ? "still live" : "missing"}`);
      }
    }
    // Facts come from pinned /remember memories, which nothing here removes: each stays live, and what it
    // replaced names it as its successor.
    const fact = db.prepare("SELECT deleted_at AS del, superseded_by AS by FROM facts WHERE id = ?");
    for (const [id, replaced] of this.facts) {
      const f = fact.get(id) as { del: string | null } | undefined;
      if (!f || f.del) problems.push(`acknowledged fact ${id} is ${f ? "forgotten" : "missing"}`);
      const old = replaced ? (fact.get(replaced) as { by: string | null } | undefined) : undefined;
      if (replaced && old?.by !== id)
        problems.push(`fact ${replaced} was replaced by ${id}, yet names ${old?.by ?? "none"}`);
    }
    const hasMessage = db.prepare("SELECT 1 FROM messages WHERE id = ?");
    for (const id of this.messages)
      if (!hasMessage.get(id)) problems.push(`acknowledged chat message ${id} is missing`);
    const docs = db.prepare("SELECT id, status, chunks_total AS total, chunks_done AS done FROM documents").all() as {
      id: string;
      status: string;
      total: number;
      done: number;
    }[];
    const byId = new Map(docs.map((d) => [d.id, d]));
    // A delete the process died during either committed or did not: both are whole states. Gone, it is a
    // deleted document (its shared chunks must stay with the other); there, it is still expected.
    for (const [id, other] of this.deleting)
      if (!byId.has(id)) {
        this.documents.delete(id);
        this.deletedDocs.push({ id, other });
      }
    this.deleting.clear();
    for (const id of this.documents) if (!byId.has(id)) problems.push(`acknowledged document ${id} is missing`);
    for (const d of this.deletedDocs) if (byId.has(d.id)) problems.push(`deleted document ${d.id} is still there`);
    // A document's memories are its links (document_chunks): shared chunks count for each document.
    const memCount = db.prepare(
      "SELECT count(*) AS n, sum(m.soft_deleted = 0) AS live FROM document_chunks l JOIN memories m ON m.id = l.memory_id WHERE l.document_id = ?",
    );
    for (const d of docs) {
      const { n, live } = memCount.get(d.id) as { n: number; live: number | null };
      if (d.status === "done" && (live !== d.total || d.done !== d.total))
        problems.push(`document ${d.id} is done with ${live}/${d.total} chunks (progress ${d.done})`);
      if ((d.status === "failed" || d.status === "cancelled") && n !== 0)
        problems.push(`document ${d.id} is ${d.status} but has ${n} memories`);
      if (final && (d.status === "queued" || d.status === "processing"))
        problems.push(`document ${d.id} is still ${d.status} after recovery`);
    }
    if (final) {
      const row = db.prepare(
        "SELECT u.content AS user, a.content AS assistant, c.space_id AS space FROM messages a JOIN messages u ON u.id = ? JOIN conversations c ON c.id = a.conversation_id WHERE a.id = ?",
      );
      for (const c of this.chats) {
        const r = row.get(c.userMessageId, c.assistantMessageId) as
          | { user: string; assistant: string; space: string }
          | undefined;
        if (!r) problems.push(`chat exchange ${c.assistantMessageId} is missing`);
        else if (!exchangePersisted(db, c.assistantMessageId))
          problems.push(`acknowledged chat reply ${c.assistantMessageId} never became a memory`);
      }
    }
    return problems;
  }
}

/** Everything acknowledged so far, over all lives (the tests below run in order on one data folder). */
const expected = new Expected();

/** The process died inside a transaction: what it was writing must not be there. */
function checkDying(db: Database.Database, dying: NonNullable<Run["dying"]>): string[] {
  if (!dying.inTx) return [];
  const problems: string[] = [];
  const stateOf = (rid: number) =>
    (db.prepare("SELECT soft_deleted AS sd FROM memories WHERE rid = ?").get(rid) as { sd: number } | undefined)?.sd ??
    null;
  if (dying.sql.startsWith('INSERT INTO "kw_m_')) {
    // insertMemories (the memory, written just before in the same transaction, must be gone) or a restore
    // (restoreMemories indexes the words of a soft-deleted memory before it clears the flag: still so)
    const rid = dying.args[0] as number;
    const now = stateOf(rid);
    if (dying.before === 1 && now !== 1)
      problems.push(`died restoring memory rid ${rid}'s words, yet it is ${now === null ? "gone" : "live"}`);
    if (dying.before !== 1 && now !== null) problems.push(`died inserting memory rid ${rid}, yet it is there`);
  }
  if (dying.sql.includes("INTO import_job_memories")) {
    // an import batch's transaction: the memory it was listing for its job was written in it, so is gone
    const id = dying.args[1] as string;
    if (db.prepare("SELECT 1 FROM memories WHERE id = ?").get(id))
      problems.push(`died listing memory ${id} of an import batch, yet it is there`);
  }
  if (dying.sql.startsWith('INSERT INTO "kw_f_')) {
    const rid = dying.args[0] as number;
    if (db.prepare("SELECT 1 FROM facts WHERE rid = ?").get(rid))
      problems.push(`died inserting fact rid ${rid}, yet it is there`);
    if (db.prepare("SELECT 1 FROM fact_vectors WHERE rid = ?").get(rid))
      problems.push(`died inserting fact rid ${rid}, yet its vector is there`);
  }
  if (dying.sql.startsWith("INSERT INTO memory_vec (")) {
    // a restore (the memory was soft-deleted: still so) or insertMemories (its row, written just before in
    // the same transaction, must be gone)
    const rid = dying.args[0] as number;
    const now = stateOf(rid);
    const expected = dying.before === 1 ? 1 : null;
    if (now !== expected)
      problems.push(
        `died inserting the vector of memory rid ${rid}, yet the memory is ${now === null ? "gone" : now ? "soft-deleted" : "live"}`,
      );
  }
  // a soft delete (or purge) rolled back: the memory is as it was
  const softDeleting = dying.sql.startsWith("UPDATE memories SET soft_deleted = 1")
    ? (dying.args[1] as number)
    : dying.sql.startsWith('DELETE FROM "kw_m_')
      ? (dying.args[0] as number)
      : null;
  if (softDeleting !== null) {
    const now = stateOf(softDeleting);
    const was = dying.before ?? 0;
    if (now !== was)
      problems.push(
        `died soft-deleting or purging memory rid ${softDeleting}, yet it is ${now === null ? "gone" : now ? "soft-deleted" : "live"} (was ${was ? "soft-deleted" : "live"})`,
      );
  }
  if (
    dying.sql.startsWith("INSERT INTO messages") &&
    db.prepare("SELECT 1 FROM messages WHERE id = ?").get(dying.args[0] as string)
  ) {
    problems.push(`died inserting message ${String(dying.args[0])}, yet it is there`);
  }
  if (
    dying.sql.startsWith("DELETE FROM document_chunks") &&
    !db.prepare("SELECT 1 FROM documents WHERE id = ?").get(dying.args[0] as string)
  ) {
    problems.push(`died deleting document ${String(dying.args[0])}'s links, yet the document is gone`);
  }
  if (dying.sql.includes("'$.undone'")) {
    const run = dying.args[1] as number;
    if (db.prepare("SELECT 1 FROM job_runs WHERE id = ? AND json_extract(result, '$.undone') IS NOT NULL").get(run))
      problems.push(`died undoing run ${run}, yet it is marked undone`);
  }
  if (dying.sql.startsWith("UPDATE memories SET soft_deleted = 0")) {
    const rid = dying.args[0] as number;
    if (stateOf(rid) !== 1)
      problems.push(`died restoring memory rid ${rid}, yet it is ${stateOf(rid) === null ? "gone" : "live"}`);
  }
  if (dying.sql.startsWith("INSERT INTO documents")) {
    const id = (dying.args[0] as { id: string }).id;
    if (db.prepare("SELECT 1 FROM documents WHERE id = ?").get(id))
      problems.push(`died inserting document ${id}, yet it is there`);
  }
  return problems;
}

test(`${KILLS} SIGKILLs at random moments and inside write transactions: nothing acknowledged is lost, nothing is half-written`, async () => {
  const rng = createRng(SEED);
  const stats = {
    kills: 0,
    selfKillsInTx: 0,
    selfKillsOther: 0,
    diedStarting: 0,
    embedderGone: 0,
    readyMs: [] as number[],
  };
  const t0 = Date.now();
  for (let i = 0; i < KILLS; i++) {
    // every third life dies inside a statement, the points taken in turn; the others at a random moment
    const dieAt = i % 3 === 2 ? `${DIE_POINTS[((i - 2) / 3) % DIE_POINTS.length]}|${rng.int(1, 3)}` : undefined;
    const ownEmbedder = i % 4 === 0;
    const run = await live({
      seed: `${SEED}-${i}`,
      dieAt,
      killAfterMs: dieAt ? 2_500 : rng.int(150, 1_000),
      ownEmbedder,
    });
    if (process.env.MEMO_CRASH_VERBOSE)
      console.log(
        `[crash] life ${i + 1}: ${dieAt ?? "random"} ready=${run.ready?.ms} acks=${run.acks.length} dying=${JSON.stringify(run.dying)?.slice(0, 120)}`,
      );
    const where = `kill ${i + 1} (${dieAt ? `inside "${dieAt}"` : "random moment"})`;
    // (a process told to die inside a statement may do so during start-up: recovery writes too)
    assert.ok(run.ready || run.dying, `${where}: the harness started\n${run.log.join("\n").slice(-3000)}`);
    assert.equal(run.signal, "SIGKILL", `${where}: killed (code ${run.code})\n${run.log.join("\n").slice(-3000)}`);
    assert.deepEqual(run.errors, [], `${where}: no write failed before the kill`);
    assert.equal(run.secretInLog, false, `${where}: the provider key appears in the log`);
    stats.kills++;
    if (run.ready) stats.readyMs.push(run.ready.ms);
    else stats.diedStarting++;
    if (run.dying) stats[run.dying.inTx ? "selfKillsInTx" : "selfKillsOther"]++;
    // the killed app's embedding server follows it (its stdin pipe closed)
    const emb = run.embedderPid;
    if (ownEmbedder) assert.ok(emb, `${where}: it started its own embedding server`);
    if (emb !== null) {
      assert.ok(
        await waitFor(() => !alive(emb), 5_000),
        `${where}: the embedding server (pid ${emb}) outlived the app`,
      );
      stats.embedderGone++;
    }
    expected.add(run.acks);
    const db = openStore();
    try {
      const problems = [...expected.check(db), ...(run.dying ? checkDying(db, run.dying) : [])];
      assert.deepEqual(problems, [], `${where}: ${run.acks.length} acks this life`);
    } finally {
      db.close();
    }
  }
  console.log(
    `[crash] ${stats.kills} kills survived in ${((Date.now() - t0) / 1000).toFixed(1)} s (${stats.selfKillsInTx} inside a write transaction, ` +
      `${stats.selfKillsOther} right after an autocommit statement, ${stats.diedStarting} of them during start-up recovery, the rest at random moments); ` +
      `its own supervised embedding server gone after each of the ${stats.embedderGone} kills of a life that had one; ` +
      `ready after ${Math.round(stats.readyMs.reduce((a, b) => a + b, 0) / Math.max(1, stats.readyMs.length))} ms on average. Acknowledged: ${JSON.stringify(expected.counts)}`,
  );
});

/** A life that dies inside a statement of a scenario, then the same scenario to the end: both checked. */
async function dieThenFinish(
  scenario: string,
  dieAt: string,
  check: (dead: Run, db: Database.Database) => string[],
  name = scenario,
): Promise<Run> {
  const dead = await live({ seed: `${SEED}-${name}-die`, scenario, dieAt, killAfterMs: 0 });
  assert.equal(dead.signal, "SIGKILL", `${scenario}: died inside "${dieAt}"\n${dead.log.join("\n").slice(-3000)}`);
  assert.ok(dead.dying?.inTx, `${scenario}: the kill was inside a write transaction`);
  assert.deepEqual(dead.errors, []);
  expected.add(dead.acks);
  let db = openStore();
  try {
    assert.deepEqual(
      [...expected.check(db), ...checkDying(db, dead.dying!), ...check(dead, db)],
      [],
      `${scenario}: after the kill`,
    );
  } finally {
    db.close();
  }
  const done = await live({ seed: `${SEED}-${name}-done`, scenario, killAfterMs: 0 });
  assert.ok(done.drained, `${scenario}: finished\n${done.log.join("\n").slice(-3000)}`);
  assert.deepEqual(done.errors, []);
  expected.add(done.acks);
  db = openStore();
  try {
    assert.deepEqual(expected.check(db), [], `${scenario}: after finishing`);
  } finally {
    db.close();
  }
  return done;
}

test("a kill inside deleting a document whose chunks another document shares: both stay whole; the delete then keeps the shared chunks", async () => {
  const linksOf = (db: Database.Database, id: string) =>
    (db.prepare("SELECT memory_id AS id FROM document_chunks WHERE document_id = ?").all(id) as { id: string }[]).map(
      (r) => r.id,
    );
  const done = await dieThenFinish("share-delete", "DELETE FROM document_chunks WHERE document_id|2", (dead, db) => {
    const pair = dead.acks.find((a) => a.t === "pair") as { a: string; b: string } | undefined;
    if (!pair) return ["the documents were not both ingested before the kill"];
    const shared = linksOf(db, pair.a).filter((id) => linksOf(db, pair.b).includes(id));
    return [
      ...(shared.length ? [] : ["the two documents share no chunk"]),
      ...(db.prepare("SELECT 1 FROM documents WHERE id = ?").get(pair.a) ? [] : ["the document being deleted is gone"]),
    ];
  });
  const pair = done.acks.find((a) => a.t === "pair") as unknown as { a: string; b: string };
  const db = openStore();
  try {
    assert.equal(db.prepare("SELECT 1 FROM documents WHERE id = ?").get(pair.a), undefined);
    const kept = linksOf(db, pair.b);
    const live = db
      .prepare("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0 AND id IN (SELECT value FROM json_each(?))")
      .get(JSON.stringify(kept)) as { n: number };
    assert.equal(live.n, kept.length, "every chunk of the remaining document is live, the shared ones included");
  } finally {
    db.close();
  }
});

test("a kill inside a consolidation undo leaves the run as it was; the undo then restores the originals and removes the merge", async () => {
  const done = await dieThenFinish("undo", "UPDATE memories SET soft_deleted = 0|1", (dead, db) => {
    const merge = dead.acks.find((a) => a.t === "merge") as { run: number; merges: unknown[] } | undefined;
    if (!merge || merge.merges.length === 0) return ["the pair was not merged before the kill"];
    const undone = db
      .prepare("SELECT json_extract(result, '$.undone') AS u FROM job_runs WHERE id = ?")
      .get(merge.run) as { u: string | null };
    return undone.u ? [`run ${merge.run} is marked undone although its undo died`] : [];
  });
  const merge = done.acks.find((a) => a.t === "merge") as unknown as {
    run: number;
    merges: { id: string; from: [string, string] }[];
  };
  const db = openStore();
  try {
    for (const m of merge.merges) {
      assert.equal(db.prepare("SELECT 1 FROM memories WHERE id = ?").get(m.id), undefined, "the merged memory is gone");
      for (const f of m.from)
        assert.deepEqual(
          db.prepare("SELECT soft_deleted AS sd FROM memories WHERE id = ?").get(f),
          { sd: 0 },
          "the original is live again",
        );
    }
  } finally {
    db.close();
  }
});

test("a kill inside an undo's restore, between re-indexing an original's words and marking it live: it stays soft-deleted", async () => {
  // restoreMemories indexes an original's words before it clears soft_deleted. The random lives die there too,
  // at times: checkDying once read it as an insert ("died inserting memory rid N, yet it is there").
  await dieThenFinish(
    "undo",
    'INSERT INTO "kw_m_|1|soft-deleted',
    (dead, db) => {
      const rid = dead.dying!.args[0] as number;
      if (dead.dying!.before !== 1) return [`died inside ${JSON.stringify(dead.dying)}, not a restore`];
      const now = db.prepare("SELECT soft_deleted AS sd FROM memories WHERE rid = ?").get(rid) as { sd: number };
      return now?.sd === 1 ? [] : [`the original rid ${rid} is ${now ? "live" : "gone"} although its restore died`];
    },
    "undo-restore",
  );
});

test("a kill inside writing a fact that replaces another: no half fact, the old one still current; the write then goes through", async () => {
  const done = await dieThenFinish("facts", 'INSERT INTO "kw_f_|2', (dead, db) => {
    const first = dead.acks.find((a) => a.t === "fact") as { id: string } | undefined;
    if (!first) return ["the first fact was not written before the kill"];
    const row = db.prepare("SELECT superseded_by AS by, valid_to AS until FROM facts WHERE id = ?").get(first.id) as
      | { by: string | null; until: string | null }
      | undefined;
    const orphans = (
      db.prepare("SELECT count(*) AS n FROM fact_sources WHERE fact_id NOT IN (SELECT id FROM facts)").get() as {
        n: number;
      }
    ).n;
    return [
      ...(row && row.by === null && row.until === null ? [] : [`the replaced fact is ${JSON.stringify(row)}`]),
      ...(orphans === 0 ? [] : [`${orphans} sources of a half-written fact stayed`]),
    ];
  });
  const second = done.acks.filter((a) => a.t === "fact")[1] as unknown as { id: string; replaces: string };
  const db = openStore();
  try {
    assert.deepEqual(db.prepare("SELECT superseded_by AS by FROM facts WHERE id = ?").get(second.replaces), {
      by: second.id,
    });
  } finally {
    db.close();
  }
});

test("a kill inside an import's batch: the next start resumes the job from its cursor; nothing stored twice, nothing acknowledged lost", async () => {
  const job = (acks: Ack[]) => acks.find((a) => a.t === "importjob") as { id: string } | undefined;
  let id = "";
  // A job's first batch is 8 chunks, the next 32: the 20th memory listed is inside the second batch.
  const done = await dieThenFinish("import", "INTO import_job_memories|20", (dead, db) => {
    id = job(dead.acks)?.id ?? "";
    if (!id) return ["the import was not queued before the kill"];
    const row = db.prepare("SELECT status, imported FROM import_jobs WHERE id = ?").get(id) as
      | { status: string; imported: number }
      | undefined;
    return row?.status === "running" && row.imported === 8
      ? []
      : [`after the kill the job is ${JSON.stringify(row)} (running, with its first batch of 8 stored)`];
  });
  const end = done.acks.find((a) => a.t === "imported") as unknown as {
    status: string;
    imported: number;
    duplicates: number;
  };
  assert.deepEqual(
    [end.status, end.imported, end.duplicates],
    ["done", 240, 0],
    "resumed and finished; no batch again",
  );
  const db = openStore();
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.equal(count("SELECT count(*) AS n FROM memories WHERE space_id = 'import-crash' AND soft_deleted = 0"), 240);
    assert.equal(count("SELECT count(DISTINCT content_hash) AS n FROM memories WHERE space_id = 'import-crash'"), 240);
    assert.equal(
      (db.prepare("SELECT count(*) AS n FROM import_job_memories WHERE job_id = ?").get(id) as { n: number }).n,
      240,
      "the job lists each memory it wrote once",
    );
  } finally {
    db.close();
  }
});

test("SIGTERM in the middle of work: a bounded graceful shutdown; the index is saved, the store closed, nothing acknowledged lost", async () => {
  const run = await live({ seed: `${SEED}-term`, killAfterMs: 1_200, ownEmbedder: true, signal: "SIGTERM" });
  const tookMs = run.exitedAt - run.signalledAt;
  assert.equal(
    run.code,
    0,
    `exit code 0 after SIGTERM (code ${run.code}, signal ${run.signal})\n${run.log.join("\n").slice(-3000)}`,
  );
  assert.deepEqual(run.errors, []);
  assert.equal(run.secretInLog, false, "the provider key appears in the log");
  assert.ok(tookMs < 10_000, `stopped within its 10 s bound (${tookMs} ms)`);
  const summary = run.log.find((l) => /\[memo\] stopped in \d+ ms/.test(l));
  assert.ok(summary, run.log.join("\n").slice(-2000));
  assert.ok(await waitFor(() => !alive(run.embedderPid!), 3_000), "the embedding server was stopped");
  expected.add(run.acks);
  const memDir = path.join(dataDir, "memory");
  // closed cleanly: the WAL was checkpointed into the database and removed
  assert.ok(
    !fs.existsSync(path.join(memDir, "memory.db-wal")) || fs.statSync(path.join(memDir, "memory.db-wal")).size === 0,
    "no WAL left behind",
  );
  const db = openStore();
  try {
    assert.deepEqual(expected.check(db), []);
    const manifest = JSON.parse(fs.readFileSync(path.join(memDir, "ann", "manifest.json"), "utf8")) as {
      generation: number;
    };
    const generation = Number(
      (db.prepare("SELECT value FROM meta WHERE key = 'vec_generation'").get() as { value: string }).value,
    );
    assert.equal(manifest.generation, generation, "the ANN index was saved at the store's current generation");
  } finally {
    db.close();
  }
  console.log(
    `[crash] SIGTERM mid-work: exited 0 after ${tookMs} ms (${summary!.trim()}); ${run.acks.length} writes acknowledged in that life`,
  );
});

test("a last start with no new work: recovery finishes every document and persists every acknowledged chat reply", async () => {
  const last = await live({ seed: `${SEED}-drain`, drain: true, killAfterMs: 0, ownEmbedder: true });
  assert.ok(last.drained, `recovery finished\n${last.log.join("\n").slice(-3000)}`);
  assert.equal(last.code, 0, `graceful exit after SIGTERM (code ${last.code}, signal ${last.signal})`);
  assert.equal(last.secretInLog, false);
  const db = openStore();
  try {
    assert.deepEqual(expected.check(db, true), []);
    const totals = db.prepare("SELECT count(*) AS n, sum(soft_deleted = 0) AS live FROM memories").get() as {
      n: number;
      live: number;
    };
    const docs = db.prepare("SELECT status, count(*) AS n FROM documents GROUP BY status").all() as {
      status: string;
      n: number;
    }[];
    console.log(
      `[crash] after recovery: acknowledged ${JSON.stringify(expected.counts)}, all present; store: ${totals.n} memories (${totals.live} live), ` +
        `documents ${JSON.stringify(Object.fromEntries(docs.map((d) => [d.status, d.n])))}; the final SIGTERM took ${last.exitedAt - last.signalledAt} ms`,
    );
  } finally {
    db.close();
  }
});
