/**
 * The import runner (issue 55): works the unfinished import jobs of the store one batch at a time, taking
 * the people in turn — a batch of one person's job, then one of the next person's — so that one person's
 * large import never holds another's small one for more than a batch (a second or two of embedding). A
 * person's own jobs run oldest first.
 *
 * A batch: units read from the job's file (job-reader.ts) until IMPORT_BATCH chunks, duplicates of live
 * memories skipped, embedded, then written in ONE transaction with the job's new cursor, its counts and the
 * list of the memories it wrote. A kill at any point leaves the cursor and the memories agreeing: the next
 * start reads from the cursor again, and a chunk already stored is a duplicate (found by its content hash),
 * so nothing is stored twice and nothing written is lost. A job cancelled while its batch was embedding
 * writes nothing more (the transaction sees the cancel).
 *
 * A conversation of a ChatGPT/Claude export becomes a chat (server/chat/imported-conversations.ts) in the
 * batch that holds its last exchange: all its memories are then stored, so every reply is linked to them, and
 * the chat is written whole, once, with the cursor that passes it. Its exchanges may span batches: the
 * conversation (handed on its first unit) is held until then; a resume after a crash hands it again on the
 * first unit read, so the chat is still written whole, once.
 */
import fs from "node:fs";
import { runAs } from "../../core/acting";
import type { MemoContext } from "../../core/context";
import { asServiceError } from "../../core/errors";
import { activeModel } from "../../memory/index/model-check";
import { contentHash, findLiveByHash, insertMemories, type NewMemory } from "../../memory/store";
import { type ImportedConversation, writeImportedConversation } from "../../chat/imported-conversations";
import { IMPORT_BATCH, ownSources } from "../transfer-service";
import { asImportedConversation, type ConversationCounts, MAX_PROBLEMS, noneReadable } from "./conversations";
import { IMPORT_FORMATS } from "./formats";
import { chatGptFormat } from "./chatgpt";
import { claudeFormat } from "./claude";
import { type ImportReader, type ImportUnit, openReader, type PlanWhole } from "./job-reader";
import {
  addImportedConversation,
  addImportedMemories,
  finishImportJob,
  type ImportJobRow,
  importJobRow,
  markImportRunning,
  recordImportBatch,
  saveImportDetail,
  unfinishedImportRows,
} from "./job-rows";

export interface ImportRunnerOptions {
  context: () => MemoContext;
  planWhole: PlanWhole;
  /** Chunks embedded and written per batch (one transaction). */
  batchSize?: number;
}

const nowIso = () => new Date().toISOString();

/** Chunks in a job's first batch. */
const FIRST_BATCH = 8;

export class ImportRunner {
  private readers = new Map<string, ImportReader>();
  /** Units read ahead, or left for the next batch (they did not fit in this one); null: the file's end. */
  private held = new Map<string, (ImportUnit | null)[]>();
  /** The reading ahead of a job's next batch while its batch embeds (parse and embedding overlap). */
  private ahead = new Map<string, Promise<void>>();
  /** A job's conversation whose last exchange is not written yet (its item number), held to be written then. */
  private open = new Map<string, { item: number; conversation: ImportedConversation | null }>();
  private lastPerson: string | null = null;
  private loop: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly opts: ImportRunnerOptions) {}

  /** Plan whole files (a Memo export) with this (the server's off-thread planner). */
  setPlanner(planWhole: PlanWhole): void {
    this.opts.planWhole = planWhole;
  }

  /** Work the queue (a no-op while it is being worked: the loop reads the queue before each batch). */
  wake(): void {
    if (this.stopped) return;
    if (this.loop) {
      this.again = true;
      return;
    }
    this.loop = this.work().finally(() => {
      this.loop = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once no job is left to work. */
  async whenIdle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** Stop after the batch in progress (its transaction commits or never starts); the jobs stay as they are. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    for (const id of [...this.readers.keys()]) this.drop(id);
  }

  /** Forget a job's open file (it was cancelled, or finished). */
  drop(id: string): void {
    this.readers.get(id)?.close();
    this.readers.delete(id);
    this.held.delete(id);
    this.ahead.delete(id);
    this.open.delete(id);
  }

  private queue(id: string): (ImportUnit | null)[] {
    let q = this.held.get(id);
    if (!q) this.held.set(id, (q = []));
    return q;
  }

  private async nextUnit(id: string, reader: ImportReader): Promise<ImportUnit | null> {
    const q = this.queue(id);
    return q.length ? q.shift()! : reader.next();
  }

  /** Read the next batch's units (about `size` chunks) into the job's queue. */
  private async readAhead(id: string, reader: ImportReader, size: number): Promise<void> {
    const q = this.queue(id);
    let n = q.reduce((k, u) => k + (u?.chunks.length ?? 0), 0);
    while (n < size && q.at(-1) !== null) {
      const u = await reader.next();
      q.push(u);
      if (!u) break;
      n += u.chunks.length;
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      this.again = false;
      if (this.stopped) return;
      const id = this.pick();
      if (!id) return;
      await this.step(id);
      // Let requests in between batches.
      await new Promise((r) => setImmediate(r));
    }
  }

  /** The next job: the oldest of the person after the last one served, among the people with work. */
  private pick(): string | null {
    const rows = unfinishedImportRows(this.opts.context().db);
    if (rows.length === 0) return null;
    const people = [...new Set(rows.map((r) => r.personId))];
    const person = people[(people.indexOf(this.lastPerson ?? "") + 1) % people.length]!;
    this.lastPerson = person;
    return rows.find((r) => r.personId === person)!.id;
  }

  private async step(id: string): Promise<void> {
    const ctx = this.opts.context();
    const job = importJobRow(ctx.db, id);
    if (!job || (job.status !== "queued" && job.status !== "running")) return this.drop(id);
    await runAs({ personId: job.personId, admin: job.admin }, async () => {
      try {
        markImportRunning(ctx.db, id, nowIso());
        await this.batch(ctx, id);
      } catch (e) {
        const se = asServiceError(e);
        if (!se) console.error("[import] unexpected error", e);
        const message = se ? se.message : e instanceof Error ? e.message : String(e);
        const stored = importJobRow(ctx.db, id)?.imported ?? 0;
        finishImportJob(ctx.db, id, {
          status: "failed",
          at: nowIso(),
          error: stored > 0 ? `${message}; the ${stored} memories read before it are kept` : message,
          errorStatus: se?.status ?? 500,
        });
        this.finished(id, job.file);
      }
    });
  }

  private reader(ctx: MemoContext, id: string): ImportReader {
    let r = this.readers.get(id);
    if (!r) {
      const job = importJobRow(ctx.db, id)!;
      r = openReader(job, this.opts.planWhole, (detail) => saveImportDetail(ctx.db, id, detail));
      this.readers.set(id, r);
    }
    return r;
  }

  /** Read, embed and write one batch of a job; finish it when its file is read to the end. */
  private async batch(ctx: MemoContext, id: string): Promise<void> {
    // A job's first batch is small: its first conversation is stored (and visible) within a moment.
    const full = this.opts.batchSize ?? IMPORT_BATCH;
    const size = importJobRow(ctx.db, id)?.done === 0 ? Math.min(FIRST_BATCH, full) : full;
    const reader = this.reader(ctx, id);
    // What was read ahead while the last batch embedded (a failure there, e.g. invalid JSON, surfaces here).
    const pending = this.ahead.get(id);
    this.ahead.delete(id);
    await pending;
    const { model } = await activeModel(ctx);
    const taken: ImportUnit[] = [];
    const chunks: NewMemory[] = [];
    const inBatch = new Set<string>();
    let skipped = 0;
    let ended = false;
    // Duplicates (a file imported again) are not embedded, but count towards a bound on what one step reads.
    while (chunks.length < size && chunks.length + skipped < size * 8) {
      const unit = await this.nextUnit(id, reader);
      if (!unit) {
        ended = true;
        break;
      }
      if (chunks.length > 0 && chunks.length + unit.chunks.length > size) {
        this.queue(id).unshift(unit); // an exchange's chunks stay in one batch
        break;
      }
      taken.push(unit);
      // Ids in an import are the importer's or nothing: a planted document/conversation id of another space is dropped.
      for (const m of unit.chunks.map((c) => ownSources(ctx.db, c))) {
        const key = `${m.spaceId}\u0000${contentHash(m.content)}`;
        if (inBatch.has(key) || findLiveByHash(ctx.db, m.spaceId, contentHash(m.content))) skipped++;
        else inBatch.add(key), chunks.push(m);
      }
    }
    if (!ended) {
      const next = this.readAhead(id, reader, full);
      next.catch(() => undefined); // awaited by the next batch; a job dropped meanwhile never needs it
      this.ahead.set(id, next);
    }
    const vectors = chunks.length ? await ctx.embedder.embedDocuments(chunks.map((m) => m.content)) : [];
    // Synchronous from here to the commit: nothing else writes in between, and a cancel made while the
    // batch was embedding is seen here.
    const write = ctx.db.transaction(() => {
      const job = importJobRow(ctx.db, id);
      if (job?.status !== "running") return false;
      const fresh = chunks
        .map((m, i) => ({ m, v: vectors[i]! }))
        .filter(({ m }) => !findLiveByHash(ctx.db, m.spaceId, contentHash(m.content)));
      const ids = fresh.length
        ? insertMemories(
            ctx.db,
            fresh.map((f) => f.m),
            fresh.map((f) => f.v),
            model,
          )
        : [];
      addImportedMemories(ctx.db, id, ids);
      this.writeConversations(ctx, job, taken);
      const lastUnit = taken.at(-1);
      const counts: ConversationCounts = {
        conversations: 0,
        exchanges: 0,
        skippedMessages: 0,
        undated: 0,
        malformed: 0,
      };
      const problems = [...job.problems];
      for (const u of taken) {
        if (u.credit) for (const k of Object.keys(counts) as (keyof ConversationCounts)[]) counts[k] += u.credit[k];
        if (u.problem && problems.length < MAX_PROBLEMS) problems.push(u.problem);
      }
      recordImportBatch(ctx.db, id, {
        nextItem: lastUnit ? (lastUnit.last ? lastUnit.item + 1 : lastUnit.item) : job.nextItem,
        nextGroup: lastUnit ? (lastUnit.last ? 0 : lastUnit.group + 1) : job.nextGroup,
        bytesDone: ended ? job.bytesTotal : (lastUnit?.bytesRead ?? job.bytesDone),
        ...counts,
        total: chunks.length,
        done: chunks.length,
        imported: ids.length,
        duplicates: skipped + chunks.length - fresh.length,
        problems,
      });
      if (!ended) return true;
      const after = importJobRow(ctx.db, id)!;
      // Not one conversation readable: not this format's file at all (nothing was stored).
      const format = after.kind === "chatgpt" ? chatGptFormat : after.kind === "claude" ? claudeFormat : null;
      if (format && after.conversations === 0 && after.malformed > 0) {
        const e = noneReadable(format, after.problems[0] ?? "", after.malformed);
        finishImportJob(ctx.db, id, { status: "failed", at: nowIso(), error: e.message, errorStatus: e.status });
      } else finishImportJob(ctx.db, id, { status: "done", at: nowIso() });
      return true;
    });
    const job = importJobRow(ctx.db, id);
    const wrote = write();
    if (!wrote || ended) this.finished(id, job?.file ?? null);
  }

  /**
   * Write as chats the conversations whose last exchange is in this batch (inside its transaction, after its
   * memories), each linked to its memories; a conversation begun here and ending in a later batch is held.
   */
  private writeConversations(
    ctx: MemoContext,
    job: { id: string; kind: ImportJobRow["kind"]; space: string | null },
    taken: ImportUnit[],
  ): void {
    const prefix = IMPORT_FORMATS[job.kind].conversationPrefix;
    if (!prefix || !job.space) return;
    for (const u of taken) {
      if (u.conversation)
        this.open.set(job.id, {
          item: u.item,
          conversation: u.conversation.read && asImportedConversation(u.conversation.read, prefix),
        });
      const open = this.open.get(job.id);
      if (!u.last || open?.item !== u.item) continue;
      this.open.delete(job.id);
      if (!open.conversation) continue;
      const w = writeImportedConversation(ctx.db, job.space, open.conversation);
      addImportedConversation(ctx.db, job.id, w.id, w.created);
    }
  }

  private finished(id: string, file: string | null): void {
    this.drop(id);
    if (file) fs.rmSync(file, { force: true });
  }
}
