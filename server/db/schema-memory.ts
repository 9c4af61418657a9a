/**
 * The memory tables: people and spaces, memories and their vectors, facts, conversations and messages,
 * documents, pending API exchanges, retrieval events, meta and settings. The access-control and
 * background-work tables are schema-auth.ts and schema-jobs.ts; schema.ts re-exports all three.
 */
import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

/**
 * The people of a household server (migration 0012, server/auth/people.ts). The owner is the row 'owner'
 * (role admin); its password stays in auth_owner, so its password_hash here is null.
 */
export const people = sqliteTable("people", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  login: text("login").notNull(), // unique, case-insensitively (people_login_unique on lower(login))
  passwordHash: text("password_hash"),
  role: text("role", { enum: ["admin", "member"] })
    .notNull()
    .default("member"),
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  mustChangePassword: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
  createdAt: text("created_at").notNull().default(now),
});

export const spaces = sqliteTable(
  "spaces",
  {
    /** The space's key: its name (1–64 of [A-Za-z0-9_-]) for the owner, '<person id>~<name>' for anyone else. */
    id: text("id").primaryKey(),
    createdAt: text("created_at").notNull().default(now),
    /** Whose space it is; memories, conversations, documents and pending exchanges belong to the space's person. */
    personId: text("person_id").notNull().default("owner"),
  },
  (t) => [index("spaces_person_idx").on(t.personId)],
);

/**
 * One memory. `rid` is the integer key shared with memory_vec and the keyword tables: SQLite may renumber the
 * implicit rowid of a table whose primary key is not an INTEGER PRIMARY KEY (VACUUM), so it is explicit.
 */
export const memories = sqliteTable(
  "memories",
  {
    id: text("id").primaryKey(),
    rid: integer("rid").notNull().unique(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id),
    content: text("content").notNull(),
    timestamp: text("timestamp").notNull(),
    importance: integer("importance").notNull().default(1),
    retrievalCount: integer("retrieval_count").notNull().default(0),
    lastRetrievedAt: text("last_retrieved_at"),
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
    softDeleted: integer("soft_deleted", { mode: "boolean" }).notNull().default(false),
    deletedAt: text("deleted_at"),
    /** When the decay job found (or brought) this memory at importance 0; soft-deleted after 7 days at 0 (server/memory/lifecycle/decay.ts). */
    zeroImportanceSince: text("zero_importance_since"),
    kind: text("kind", { enum: ["chat", "document", "remember", "import", "consolidated"] })
      .notNull()
      .default("chat"),
    conversationId: text("conversation_id"),
    documentId: text("document_id"),
    chunkIndex: integer("chunk_index"),
    contentHash: text("content_hash").notNull(),
    embeddingModel: text("embedding_model").notNull(),
    createdAt: text("created_at").notNull().default(now),
    /** When the content was last edited (null: never); recency is the later of this and timestamp. */
    updatedAt: text("updated_at"),
    /** JSON [{role?, name?, start, end}]: who said which characters of the content (drizzle/0016_speakers.sql). */
    speakers: text("speakers"),
    /** Who wrote it into someone else's space through a read-write share (drizzle/0014); null: the space's person. */
    writtenBy: text("written_by"),
    /** JSON {memories, facts}: what the reply this memory stores was given (drizzle/0024_provenance.sql); null: not derived. */
    derivedFrom: text("derived_from"),
    /** Share of its content words found in none of those sources; null: not derived. */
    novelty: real("novelty"),
  },
  (t) => [
    index("memories_space_live_idx").on(t.spaceId, t.softDeleted),
    index("memories_hash_idx").on(t.spaceId, t.contentHash),
    index("memories_conversation_idx").on(t.conversationId),
    index("memories_document_idx").on(t.documentId),
    index("memories_timestamp_idx").on(t.timestamp),
    index("memories_space_time_idx").on(t.spaceId, t.softDeleted, t.timestamp),
  ],
);

/** Vectors of soft-deleted memories, parked here so memory_vec holds live rows only and restore needs no re-embed. */
export const memoryVecTrash = sqliteTable("memory_vec_trash", {
  rid: integer("rid").primaryKey(),
  embedding: blob("embedding", { mode: "buffer" }).notNull(),
});

/** A plain-table copy of memory_vec's live vectors, for fast reads by rid (drizzle/0015_vector_rows.sql). */
export const memoryVecRows = sqliteTable("memory_vec_rows", {
  rid: integer("rid").primaryKey(),
  embedding: blob("embedding", { mode: "buffer" }).notNull(),
});

/**
 * Live memories per space and the changes made to them, kept by triggers on memories (drizzle/0017, 0018);
 * read by retrieval every turn (counts, and what its per-space caches compare).
 */
export const liveCounts = sqliteTable("live_counts", {
  spaceId: text("space_id").primaryKey(),
  live: integer("live").notNull(),
  writes: integer("writes").notNull().default(0),
  /** Live (not forgotten) facts of the space, and changes made to them (drizzle/0019). */
  factsLive: integer("facts_live").notNull().default(0),
  factWrites: integer("fact_writes").notNull().default(0),
});

/**
 * A fact (issue 42, drizzle/0019, server/memory/facts/): one short statement in a space, from at least one
 * source memory. Current: valid_to, superseded_by and deleted_at null; superseded: history; forgotten
 * (deleted_at): out of every index, restorable until its sources are purged. `rid` keys its vector and keyword row.
 */
export const facts = sqliteTable(
  "facts",
  {
    id: text("id").primaryKey(),
    rid: integer("rid").notNull().unique("facts_rid_unique"),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id),
    text: text("text").notNull(),
    contentHash: text("content_hash").notNull(),
    validFrom: text("valid_from").notNull(),
    recordedAt: text("recorded_at").notNull(),
    validTo: text("valid_to"),
    supersededBy: text("superseded_by"),
    origin: text("origin", { enum: ["learned", "person", "import"] }).notNull(),
    confirmedAt: text("confirmed_at"),
    writtenBy: text("written_by"),
    deletedAt: text("deleted_at"),
    deletedReason: text("deleted_reason", { enum: ["person", "sources"] }),
    /** Set when the person took it back with Undo under a reply (not deleted on What Memo knows); drizzle/0027. */
    undoneAt: text("undone_at"),
    /** The fact whose forgetting took this one along (itself, or a later version of it). */
    deletedRoot: text("deleted_root"),
    embeddingModel: text("embedding_model").notNull(),
  },
  (t) => [
    index("facts_space_idx").on(t.spaceId, t.deletedAt, t.supersededBy),
    index("facts_superseded_by_idx").on(t.supersededBy),
    index("facts_deleted_root_idx").on(t.deletedRoot),
    index("facts_model_idx").on(t.embeddingModel),
  ],
);

/** The memories a fact came from. */
export const factSources = sqliteTable(
  "fact_sources",
  {
    factId: text("fact_id")
      .notNull()
      .references(() => facts.id, { onDelete: "cascade" }),
    memoryId: text("memory_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.factId, t.memoryId] }), index("fact_sources_memory_idx").on(t.memoryId)],
);

/** One vector per live fact (exact scan per space). */
export const factVectors = sqliteTable(
  "fact_vectors",
  {
    rid: integer("rid")
      .primaryKey()
      .references(() => facts.rid, { onDelete: "cascade" }),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id),
    embedding: blob("embedding", { mode: "buffer" }).notNull(),
  },
  (t) => [index("fact_vectors_space_idx").on(t.spaceId)],
);

/** Vectors of forgotten facts, parked for a restore. */
export const factVectorTrash = sqliteTable("fact_vector_trash", {
  rid: integer("rid")
    .primaryKey()
    .references(() => facts.rid, { onDelete: "cascade" }),
  embedding: blob("embedding", { mode: "buffer" }).notNull(),
});

/** A space's key for its keyword tables kw_m_<n> / kw_f_<n> (drizzle/0018, server/memory/store/keyword-index.ts). */
export const keywordTables = sqliteTable("keyword_tables", {
  n: integer("n").primaryKey({ autoIncrement: true }),
  spaceId: text("space_id")
    .notNull()
    .unique("keyword_tables_space_unique")
    .references(() => spaces.id),
});

/** Key/value facts about the store, e.g. embedding_model and embedding_dim. */
export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(), // JSON
  updatedAt: text("updated_at").notNull().default(now),
});

export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id),
    title: text("title").notNull().default("New conversation"),
    /** Pinned conversations head the chat page's list. Titles and messages are searchable through conversation_fts (drizzle/0010). */
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
    /** Memory per conversation (server/chat/temporary-chats.ts): recall into prompts, store exchanges as memories. */
    recallMemory: integer("recall_memory", { mode: "boolean" }).notNull().default(true),
    storeMemory: integer("store_memory", { mode: "boolean" }).notNull().default(true),
    /** A temporary chat: never stored as memory, deleted 24 h after it started or when its tab stops heartbeating. */
    temporary: integer("temporary", { mode: "boolean" }).notNull().default(false),
    expiresAt: text("expires_at"),
    lastSeenAt: text("last_seen_at"),
    /** The import format that wrote it ("chatgpt", "claude"); null for Memo's own chats (drizzle/0028). */
    importedFrom: text("imported_from"),
    /** The conversation_id its imported memories carry ("chatgpt:<id>"); one row per space and source. */
    importSource: text("import_source"),
  },
  (t) => [
    index("conversations_temporary_idx").on(t.temporary, t.expiresAt),
    uniqueIndex("conversations_import_source_idx")
      .on(t.spaceId, t.importSource)
      .where(sql`${t.importSource} IS NOT NULL`),
  ],
);

/** A space shared by its person with another, read-only or read-write (drizzle/0014_space_shares.sql). */
export const spaceShares = sqliteTable(
  "space_shares",
  {
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    personId: text("person_id").notNull(),
    mode: text("mode", { enum: ["read", "write"] })
      .notNull()
      .default("read"),
    createdAt: text("created_at").notNull().default(now),
    /** When its person saw the share (dismissed the notice, added the space to a chat); null: not yet (drizzle/0025). */
    seenAt: text("seen_at"),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.personId] }), index("space_shares_person_idx").on(t.personId)],
);

/** Spaces shared with the conversation's person that its recall also reads (added explicitly, drizzle/0014). */
export const conversationSpaces = sqliteTable(
  "conversation_spaces",
  {
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.spaceId] })],
);

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["user", "assistant", "system"] }).notNull(),
    content: text("content").notNull(),
    recalled: text("recalled"), // JSON: the memories recalled for this reply, with scores
    sent: text("sent"), // JSON SentMemory: the exact memory block sent to the provider with this reply's prompt
    createdAt: text("created_at").notNull().default(now),
    /** On an assistant message: when its exchange became memories (server/chat/write-exchange.ts), in the same transaction. */
    persistedAt: text("persisted_at"),
    /** JSON array of the memory ids its exchange was written as. */
    memoryIds: text("memory_ids"),
  },
  (t) => [index("messages_conversation_idx").on(t.conversationId, t.createdAt)],
);

export const documents = sqliteTable("documents", {
  id: text("id").primaryKey(),
  spaceId: text("space_id")
    .notNull()
    .references(() => spaces.id),
  name: text("name").notNull(),
  mime: text("mime").notNull(),
  size: integer("size").notNull(),
  contentHash: text("content_hash").notNull(),
  status: text("status", { enum: ["queued", "processing", "done", "failed", "cancelled"] }).notNull(),
  error: text("error"),
  chunksTotal: integer("chunks_total").notNull().default(0),
  chunksDone: integer("chunks_done").notNull().default(0),
  createdAt: text("created_at").notNull().default(now),
  updatedAt: text("updated_at").notNull().default(now),
});

/** A memory's documents: one chunk can belong to several (deleting a document removes only unshared chunks). */
export const documentChunks = sqliteTable(
  "document_chunks",
  {
    documentId: text("document_id").notNull(),
    memoryId: text("memory_id").notNull(),
    chunkIndex: integer("chunk_index"),
  },
  (t) => [primaryKey({ columns: [t.documentId, t.memoryId] }), index("document_chunks_memory_idx").on(t.memoryId)],
);

/** OpenAI-compatible API exchanges waiting to become memories; deleted in the memories' transaction. */
export const pendingExchanges = sqliteTable("pending_exchanges", {
  id: text("id").primaryKey(),
  spaceId: text("space_id")
    .notNull()
    .references(() => spaces.id),
  userContent: text("user_content").notNull(),
  assistantContent: text("assistant_content").notNull(),
  timestamp: text("timestamp").notNull(),
  source: text("source").notNull(),
  createdAt: text("created_at").notNull().default(now),
  /** JSON {memories, facts} the reply was given (drizzle/0024_provenance.sql). */
  recalled: text("recalled"),
});

/**
 * One row per recall of a memory into a person's prompt (what Analytics charts per day), the recaller's
 * (drizzle/0021): a recall of one's own memory names it and its space and is removed with the memory; a recall
 * of a memory shared with the person names neither (null), so nothing of the owner's is in it.
 */
export const retrievalEvents = sqliteTable(
  "retrieval_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    memoryId: text("memory_id"),
    spaceId: text("space_id").references(() => spaces.id),
    /** Whose prompt it was recalled into. */
    personId: text("person_id").notNull().default("owner"),
    at: text("at").notNull(),
  },
  (t) => [
    index("retrieval_events_space_at_idx").on(t.spaceId, t.at),
    index("retrieval_events_memory_idx").on(t.memoryId),
    index("retrieval_events_person_at_idx").on(t.personId, t.at),
  ],
);
