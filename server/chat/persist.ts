/**
 * Persisting chat exchanges as memories (SPEC §1 step 8), off the reply path: the exchange (user message
 * + assistant reply, concatenated) is chunked 300/50, embedded with the document prefix and written to
 * memories, memory_vec and memory_fts in one transaction (memory-service addMemories).
 *
 * A failed write (embedding server down, database busy) is retried with exponential backoff and logged
 * each time; after the last attempt it is logged as an error and listed in status() — and since the
 * messages themselves are stored, recoverUnpersisted() (run at start-up) finds and writes any exchange
 * that never became a memory. Nothing is lost silently.
 */
import type Database from "better-sqlite3";
import { chunkWords, exchangeText } from "../memory/chunker";
import { contentHash } from "../memory/store";
import { addMemories, appContext, asServiceError, type MemoContext } from "../services/memory-service";

export interface ExchangeJob {
  space: string;
  conversationId: string | null;
  user: string;
  assistant: string;
  /** When the exchange happened (the user message's time). */
  timestamp: string;
  /** Where it came from, for logs: the chat page, the OpenAI-compatible API, recovery. */
  source: string;
}

export interface PersistQueueOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  log?: (level: "info" | "warn" | "error", msg: string) => void;
}

export interface PersistStatus {
  pending: number;
  persisted: number;
  retries: number;
  failed: { source: string; conversationId: string | null; space: string; attempts: number; error: string; at: string }[];
}

function describe(job: ExchangeJob): string {
  return `${job.source} exchange in space '${job.space}'${job.conversationId ? ` (conversation ${job.conversationId})` : ""}`;
}

export class PersistQueue {
  private queue: { job: ExchangeJob; resolve: (ids: string[] | null) => void }[] = [];
  private running = false;
  private persisted = 0;
  private retries = 0;
  private failed: PersistStatus["failed"] = [];
  private idle: (() => void)[] = [];
  private readonly o: Required<PersistQueueOptions>;

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
        ((level, msg) => (level === "error" ? console.error : level === "warn" ? console.warn : console.log)(`[chat] ${msg}`)),
    };
  }

  /** Queue an exchange; the promise says how it ended (ids, or null when given up). Callers need not wait. */
  enqueue(job: ExchangeJob): Promise<string[] | null> {
    return new Promise((resolve) => {
      this.queue.push({ job, resolve });
      if (!this.running) void this.run();
    });
  }

  status(): PersistStatus {
    return { pending: this.queue.length, persisted: this.persisted, retries: this.retries, failed: [...this.failed] };
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
        const ids = await persistExchange(this.ctx(), job);
        this.persisted++;
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
        this.retries++;
        this.o.log("warn", `persisting the ${describe(job)} failed (attempt ${attempt}/${this.o.maxAttempts}: ${lastError}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    this.failed.push({ source: job.source, conversationId: job.conversationId, space: job.space, attempts: this.o.maxAttempts, error: lastError, at: new Date().toISOString() });
    if (this.failed.length > 100) this.failed.shift();
    this.o.log(
      "error",
      `GAVE UP persisting the ${describe(job)} after ${this.o.maxAttempts} attempts: ${lastError}. ` +
        (job.conversationId ? "Its messages are stored; it will be written at the next start." : "It was not written to memory."),
    );
    return null;
  }
}

/** Write one exchange as memories of kind "chat" (one transaction for all its chunks). Returns the ids. */
export async function persistExchange(ctx: MemoContext, job: ExchangeJob): Promise<string[]> {
  const text = exchangeText(job.user, job.assistant);
  const [ids] = await addMemories(ctx, [{ text, space: job.space, kind: "chat", timestamp: job.timestamp }], {
    spaceId: job.space,
    kind: "chat",
    conversationId: job.conversationId,
  });
  return ids!;
}

/** Whether an exchange already became a memory (live or not: a forgotten one must not come back). */
export function exchangeStored(db: Database.Database, space: string, conversationId: string, user: string, assistant: string): boolean {
  const first = chunkWords(exchangeText(user, assistant), 300, 50)[0];
  if (!first) return true;
  const r = db.prepare("SELECT 1 FROM memories WHERE space_id = ? AND content_hash = ? LIMIT 1").get(space, contentHash(first));
  return r !== undefined;
}

/**
 * Find the chat exchanges of the last `days` days whose memory was never written (the app stopped, or
 * every retry failed) and queue them. Returns how many were queued.
 */
export function recoverUnpersisted(ctx: MemoContext, queue: PersistQueue, days = 7): number {
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const rows = ctx.db
    .prepare(
      `SELECT m.id, m.conversation_id, m.role, m.content, m.recalled, m.created_at, c.space_id
         FROM messages m JOIN conversations c ON c.id = m.conversation_id
        WHERE m.conversation_id IN (SELECT DISTINCT conversation_id FROM messages WHERE role = 'assistant' AND created_at >= ?)
        ORDER BY m.conversation_id, m.created_at, m.rowid`,
    )
    .all(since) as { id: string; conversation_id: string; role: string; content: string; recalled: string | null; created_at: string; space_id: string }[];
  let queued = 0;
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i]!;
    const u = rows[i - 1]!;
    if (a.role !== "assistant" || u.role !== "user" || u.conversation_id !== a.conversation_id) continue;
    if (a.created_at < since || !a.content.trim()) continue;
    if (a.recalled && a.recalled.startsWith('{"command"')) continue; // memory commands are not exchanges
    if (exchangeStored(ctx.db, a.space_id, a.conversation_id, u.content, a.content)) continue;
    void queue.enqueue({ space: a.space_id, conversationId: a.conversation_id, user: u.content, assistant: a.content, timestamp: u.created_at, source: "recovered chat" });
    queued++;
  }
  return queued;
}

const g = globalThis as unknown as { __memoPersistQueue?: PersistQueue; __memoChatRecovery?: boolean };

/** The app's queue (writes through appContext()). */
export function persistQueue(): PersistQueue {
  g.__memoPersistQueue ??= new PersistQueue(() => appContext());
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
