/**
 * The background work's tables: job runs, the vector write log the ANN index replays, and the fact-learning
 * queue; beside the memory tables (schema-memory.ts); schema.ts re-exports all three (drizzle-kit and server/db/index.ts
 * read that one).
 */
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { memories, messages, now, spaces } from "./schema-memory";

export const jobRuns = sqliteTable("job_runs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  job: text("job").notNull(),
  startedAt: text("started_at").notNull(),
  finishedAt: text("finished_at"),
  status: text("status", { enum: ["running", "ok", "failed", "skipped"] }).notNull(),
  result: text("result"), // JSON counts
  error: text("error"),
  durationMs: real("duration_ms"),
});

/**
 * Write log for in-memory vector indexes (migration 0008, filled by triggers on `memories`): one row per
 * memory whose vector may have changed; `rid` NULL: replay impossible, rebuild. See server/memory/index/ann-index.ts.
 */
export const vecLog = sqliteTable("vec_log", {
  seq: integer("seq").primaryKey({ autoIncrement: true }),
  rid: integer("rid"),
});

/**
 * Learning facts (drizzle/0022_fact_learning.sql, server/memory/facts/queue.ts): opt-in runs over existing
 * memory (a document, an import, the back-fill), the persisted job queue (one job per exchange, its source
 * memories, every attempt: what Settings counts calls per provider from).
 */
export const factLearnRuns = sqliteTable(
  "fact_learn_runs",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["document", "import", "backfill"] }).notNull(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    target: text("target"),
    status: text("status", { enum: ["running", "stopped", "done"] })
      .notNull()
      .default("running"),
    total: integer("total").notNull(),
    calls: integer("calls").notNull(),
    createdAt: text("created_at").notNull().default(now),
    finishedAt: text("finished_at"),
  },
  (t) => [index("fact_learn_runs_target_idx").on(t.kind, t.target)],
);

export const factJobs = sqliteTable(
  "fact_jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    origin: text("origin", { enum: ["chat", "api", "document", "import", "backfill"] }).notNull(),
    runId: text("run_id").references(() => factLearnRuns.id, { onDelete: "cascade" }),
    messageId: text("message_id").references(() => messages.id, { onDelete: "set null" }),
    /** The provider the conversation used (llama | openai | anthropic); null: the active one. */
    provider: text("provider"),
    model: text("model"),
    /** When the exchange happened (validFrom's reference). */
    at: text("at").notNull(),
    status: text("status", { enum: ["queued", "running", "done", "failed", "skipped", "stopped"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    nextAt: text("next_at").notNull().default(now),
    factsAdded: integer("facts_added").notNull().default(0),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull().default(now),
    finishedAt: text("finished_at"),
  },
  (t) => [
    index("fact_jobs_due_idx").on(t.status, t.nextAt),
    index("fact_jobs_message_idx").on(t.messageId),
    index("fact_jobs_run_idx").on(t.runId, t.status),
  ],
);

export const factJobSources = sqliteTable(
  "fact_job_sources",
  {
    jobId: integer("job_id")
      .notNull()
      .references(() => factJobs.id, { onDelete: "cascade" }),
    memoryId: text("memory_id")
      .notNull()
      .references(() => memories.id, { onDelete: "cascade" }),
    ord: integer("ord").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.memoryId] }), index("fact_job_sources_memory_idx").on(t.memoryId)],
);

export const factAttempts = sqliteTable(
  "fact_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    jobId: integer("job_id")
      .notNull()
      .references(() => factJobs.id, { onDelete: "cascade" }),
    /** One call can serve several jobs (a batch): their attempts share it. */
    callId: text("call_id").notNull(),
    at: text("at").notNull(),
    providerKey: text("provider_key").notNull(),
    outcome: text("outcome", { enum: ["ok", "bad_output", "provider_error", "store_error"] }).notNull(),
    detail: text("detail"),
    factsAdded: integer("facts_added").notNull().default(0),
    factsReplaced: integer("facts_replaced").notNull().default(0),
    ms: real("ms"),
    /** JSON: what the call sent and where (the "Sent to" record of the extraction). */
    sent: text("sent"),
  },
  (t) => [index("fact_attempts_job_idx").on(t.jobId)],
);

/**
 * Import jobs (drizzle/0029_import_jobs.sql, server/services/import-jobs.ts): one row per received export,
 * read from its file on disk in batches; `next_item`/`next_group` are where the next batch starts (moved
 * with the batch's memories in one transaction), so a restart resumes there.
 */
export const importJobs = sqliteTable(
  "import_jobs",
  {
    id: text("id").primaryKey(),
    personId: text("person_id").notNull(),
    admin: integer("admin").notNull().default(0),
    kind: text("kind").notNull(),
    label: text("label").notNull(),
    space: text("space"),
    file: text("file"),
    status: text("status", { enum: ["queued", "running", "done", "failed", "cancelled"] })
      .notNull()
      .default("queued"),
    detail: text("detail"),
    problems: text("problems").notNull().default("[]"),
    bytesTotal: integer("bytes_total").notNull().default(0),
    bytesDone: integer("bytes_done").notNull().default(0),
    nextItem: integer("next_item").notNull().default(0),
    nextGroup: integer("next_group").notNull().default(0),
    conversations: integer("conversations").notNull().default(0),
    exchanges: integer("exchanges").notNull().default(0),
    skippedMessages: integer("skipped_messages").notNull().default(0),
    undated: integer("undated").notNull().default(0),
    malformed: integer("malformed").notNull().default(0),
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    imported: integer("imported").notNull().default(0),
    duplicates: integer("duplicates").notNull().default(0),
    error: text("error"),
    errorStatus: integer("error_status"),
    cancel: text("cancel", { enum: ["keep", "forget"] }),
    queuedAt: text("queued_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
  },
  (t) => [
    index("import_jobs_person_idx").on(t.personId, t.queuedAt),
    index("import_jobs_status_idx").on(t.status, t.queuedAt),
  ],
);

/** The memories an import job wrote: what learning from the import reads, and what a cancel that forgets removes. */
export const importJobMemories = sqliteTable(
  "import_job_memories",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    memoryId: text("memory_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.memoryId] })],
);

/**
 * The conversations an import job wrote as chats, or found already imported (`created` 0), in file order
 * (rowid): the job's result links to them, and a cancel that forgets deletes the ones it created.
 */
export const importJobConversations = sqliteTable(
  "import_job_conversations",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    conversationId: text("conversation_id").notNull(),
    created: integer("created").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.conversationId] })],
);
