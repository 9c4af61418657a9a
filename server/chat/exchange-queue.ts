/**
 * The queue that persists chat exchanges as memories (docs/architecture.md#a-chat-turn), off the reply path: the exchange (user message
 * + assistant reply, concatenated) is chunked 300/50, embedded with the document prefix and written to
 * memories, memory_vec and the keyword index in one transaction (memory-service addMemories).
 *
 * Persistence is recorded, not guessed: the same transaction that writes an exchange's memories stamps
 * its assistant message (`messages.persisted_at`, `memory_ids`), or — for an OpenAI-compatible API
 * exchange, which has no conversation — deletes its row from the `pending_exchanges` outbox. A write
 * that finds its exchange already recorded writes nothing, so a retry, a second enqueue or recovery can
 * never store it twice, and no edit, forget, delete or purge of its memories can make it come back.
 *
 * A failed write (embedding server down, database busy) is retried with exponential backoff and logged
 * each time; after the last attempt it is logged as an error and listed in status() — and
 * recoverUnpersisted() (run at start-up) re-queues exactly the exchanges never recorded as persisted.
 */
import crypto from "node:crypto";
import { ensureSpace } from "../memory/store";
import { appContext } from "../context";
import type { MemoContext } from "../core/context";
import { asServiceError } from "../core/errors";
import { runAsSystem } from "../core/acting";
import { spacePersonOf } from "../core/space-name";
import { EmbeddedTexts } from "./embedded-texts";
import { factLearner, type FactLearner } from "./fact-learner";
import { hasSources, type Provenance } from "../memory/store/provenance";
import { parseRecalledList, parseSentFacts, provenanceOfRecalled } from "./exchange-provenance";

import { type ExchangeJob, markExchangeSettled, persistExchange, stripInterruptedNote } from "./write-exchange";

// Writing one exchange is write-exchange.ts; its names are used through here too.
export {
  type ExchangeJob,
  type ExchangeRecord,
  exchangePersisted,
  markExchangeSettled,
  persistExchange,
  removeExchangeMemories,
  stripInterruptedNote,
} from "./write-exchange";

export interface PersistQueueOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  log?: (level: "info" | "warn" | "error", msg: string) => void;
  /** Woken when an exchange queued a fact-learning job (the app's queue: the app's runner; default none). */
  learner?: (() => FactLearner) | null;
}

export interface PersistStatus {
  pending: number;
  persisted: number;
  retries: number;
  failed: {
    source: string;
    conversationId: string | null;
    space: string;
    attempts: number;
    error: string;
    at: string;
  }[];
}

const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

function describe(job: ExchangeJob): string {
  return `${job.source} exchange in space '${job.space}'${job.conversationId ? ` (conversation ${job.conversationId})` : ""}`;
}

export class PersistQueue {
  private queue: { job: ExchangeJob; resolve: (ids: string[] | null) => void }[] = [];
  private running = false;
  // Per person (the person of the exchange's space): a member's status counts only their own (issue 43).
  private persisted = new Map<string, number>();
  private retries = new Map<string, number>();
  private failed: (PersistStatus["failed"][number] & { personId: string })[] = [];
  private idle: (() => void)[] = [];
  private readonly o: Required<Omit<PersistQueueOptions, "learner">>;
  private readonly learner: (() => FactLearner) | null;

  constructor(
    private readonly ctx: () => MemoContext,
    opts: PersistQueueOptions = {},
  ) {
    this.o = {
      maxAttempts: opts.maxAttempts ?? 8,
      baseDelayMs: opts.baseDelayMs ?? 500,
      maxDelayMs: opts.maxDelayMs ?? 60_000,
      log:
        opts.log ??
        ((level, msg) =>
          (level === "error" ? console.error : level === "warn" ? console.warn : console.log)(`[chat] ${msg}`)),
    };
    this.learner = opts.learner ?? null;
  }

  /** Queue an exchange; the promise says how it ended (ids, or null when given up). Callers need not wait. */
  enqueue(job: ExchangeJob): Promise<string[] | null> {
    return new Promise((resolve) => {
      this.queue.push({ job, resolve });
      // The loop serves everyone's exchanges: it must not act as the person whose request started it.
      if (!this.running) void runAsSystem(() => this.run());
    });
  }

  /**
   * An OpenAI-compatible API exchange: written to the pending_exchanges outbox first (so a crash or
   * every retry failing leaves it for recovery), then queued; its memories' transaction removes the row.
   */
  enqueueApiExchange(job: Omit<ExchangeJob, "record" | "conversationId">): Promise<string[] | null> {
    const id = crypto.randomUUID();
    const db = this.ctx().db;
    db.transaction(() => {
      ensureSpace(db, job.space);
      db.prepare(
        "INSERT INTO pending_exchanges (id, space_id, user_content, assistant_content, timestamp, source, recalled) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(
        id,
        job.space,
        job.user,
        job.assistant,
        job.timestamp,
        job.source,
        hasSources(job.recalled) ? JSON.stringify(job.recalled) : null,
      );
    })();
    return this.enqueue({ ...job, conversationId: null, record: { pendingId: id } });
  }

  /** The queue's figures: for one person (their exchanges only), or the household's with null. */
  status(personId: string | null = null): PersistStatus {
    const whose = (space: string) => personId === null || spacePersonOf(space) === personId;
    const sum = (m: Map<string, number>) =>
      personId === null ? [...m.values()].reduce((a, b) => a + b, 0) : (m.get(personId) ?? 0);
    return {
      pending: this.queue.filter((q) => whose(q.job.space)).length,
      persisted: sum(this.persisted),
      retries: sum(this.retries),
      failed: this.failed.filter((f) => personId === null || f.personId === personId).map(({ personId: _, ...f }) => f),
    };
  }

  /** Resolves when nothing is queued or being written. */
  drain(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const { job, resolve } = this.queue[0]!;
        resolve(await this.persistWithRetry(job));
        this.queue.shift();
      }
    } finally {
      this.running = false;
      for (const r of this.idle.splice(0)) r();
    }
  }

  private async persistWithRetry(job: ExchangeJob): Promise<string[] | null> {
    let lastError = "";
    for (let attempt = 1; attempt <= this.o.maxAttempts; attempt++) {
      try {
        const embedded = job.embedded ?? new EmbeddedTexts();
        const ids = await persistExchange(this.ctx(), job, embedded);
        bump(this.persisted, spacePersonOf(job.space));
        if (job.learn) this.learner?.().offer(embedded).wake(); // the learner reuses the exchange's vectors
        if (attempt > 1) this.o.log("info", `persisted the ${describe(job)} on attempt ${attempt}`);
        return ids;
      } catch (e) {
        lastError = e instanceof Error ? e.message : String(e);
        const se = asServiceError(e);
        // A 4xx means the exchange itself is unacceptable: retrying cannot help.
        if (se && se.status < 500 && se.status !== 409) {
          this.o.log("error", `could not persist the ${describe(job)}: ${lastError}; not retrying`);
          break;
        }
        if (attempt === this.o.maxAttempts) break;
        const delay = Math.min(this.o.baseDelayMs * 2 ** (attempt - 1), this.o.maxDelayMs);
        bump(this.retries, spacePersonOf(job.space));
        this.o.log(
          "warn",
          `persisting the ${describe(job)} failed (attempt ${attempt}/${this.o.maxAttempts}: ${lastError}); retrying in ${delay} ms`,
        );
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    this.failed.push({
      personId: spacePersonOf(job.space),
      source: job.source,
      conversationId: job.conversationId,
      space: job.space,
      attempts: this.o.maxAttempts,
      error: lastError,
      at: new Date().toISOString(),
    });
    if (this.failed.length > 100) this.failed.shift();
    this.o.log(
      "error",
      `GAVE UP persisting the ${describe(job)} after ${this.o.maxAttempts} attempts: ${lastError}. ` +
        (!job.record
          ? "It was not written to memory."
          : "messageId" in job.record
            ? "Its messages are stored; it will be written at the next start."
            : "It is kept in the outbox (pending_exchanges); it will be written at the next start."),
    );
    return null;
  }
}

/**
 * Queue the exchanges never recorded as persisted: chat replies of the last `days` days whose assistant
 * message has no persisted_at (the app stopped, or every retry failed), and every row left in the
 * pending_exchanges outbox. Returns how many were queued.
 */
export function recoverUnpersisted(ctx: MemoContext, queue: PersistQueue, days = 7): number {
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const rows = ctx.db
    .prepare(
      `SELECT a.id, a.conversation_id, a.content, a.recalled, a.sent, c.space_id,
              (SELECT json_array(u.role, u.content, u.created_at) FROM messages u
                WHERE u.conversation_id = a.conversation_id AND (u.created_at < a.created_at OR (u.created_at = a.created_at AND u.rowid < a.rowid))
                ORDER BY u.created_at DESC, u.rowid DESC LIMIT 1) AS prev
         FROM messages a JOIN conversations c ON c.id = a.conversation_id
        WHERE a.role = 'assistant' AND a.persisted_at IS NULL AND a.created_at >= ? AND c.temporary = 0
        ORDER BY a.created_at, a.rowid`,
    )
    .all(since) as {
    id: string;
    conversation_id: string;
    content: string;
    recalled: string | null;
    sent: string | null;
    space_id: string;
    prev: string | null;
  }[];
  let queued = 0;
  for (const a of rows) {
    const prev = a.prev ? (JSON.parse(a.prev) as [string, string, string]) : null;
    const command = a.recalled?.startsWith('{"command"'); // memory commands are not exchanges
    const notStored = a.sent !== null && (JSON.parse(a.sent) as { stored?: boolean }).stored === false; // storing was off for it
    if (prev?.[0] !== "user" || command || notStored || !stripInterruptedNote(a.content).trim()) {
      markExchangeSettled(ctx.db, a.id);
      continue;
    }
    void queue.enqueue({
      space: a.space_id,
      conversationId: a.conversation_id,
      user: prev[1],
      assistant: a.content,
      timestamp: prev[2],
      source: "recovered chat",
      record: { messageId: a.id },
      learn: { provider: null },
      recalled: provenanceOfRecalled(parseRecalledList(a.recalled), parseSentFacts(a.sent)),
    });
    queued++;
  }
  const pending = ctx.db
    .prepare(
      "SELECT id, space_id AS space, user_content AS user, assistant_content AS assistant, timestamp, source, recalled FROM pending_exchanges ORDER BY created_at, rowid",
    )
    .all() as {
    id: string;
    space: string;
    user: string;
    assistant: string;
    timestamp: string;
    source: string;
    recalled: string | null;
  }[];
  for (const p of pending) {
    void queue.enqueue({
      space: p.space,
      conversationId: null,
      user: p.user,
      assistant: p.assistant,
      timestamp: p.timestamp,
      source: `recovered ${p.source}`,
      record: { pendingId: p.id },
      learn: { provider: null },
      ...(p.recalled ? { recalled: JSON.parse(p.recalled) as Provenance } : {}),
    });
    queued++;
  }
  return queued;
}

const g = globalThis as unknown as { __memoPersistQueue?: PersistQueue; __memoChatRecovery?: boolean };

/** The app's queue (writes through appContext()). */
export function persistQueue(): PersistQueue {
  g.__memoPersistQueue ??= new PersistQueue(() => appContext(), { learner: factLearner });
  return g.__memoPersistQueue;
}

export function setPersistQueue(q: PersistQueue | undefined): void {
  g.__memoPersistQueue = q;
}

/** At start-up (once per process): queue the recent exchanges that never became memories. */
export function recoverOnStart(days = 7): void {
  if (g.__memoChatRecovery) return;
  g.__memoChatRecovery = true;
  try {
    const n = recoverUnpersisted(appContext(), persistQueue(), days);
    if (n) console.warn(`[chat] ${n} chat exchange(s) of the last ${days} days were not in memory; writing them now`);
  } catch (e) {
    console.error("[chat] could not check for unpersisted chat exchanges", e);
  }
}
