-- Issue 11, "Memory you can trust". Persistence of a chat exchange is recorded on its assistant message
-- (persisted_at + the memory ids, written in the memories' transaction), so start-up recovery re-queues
-- only exchanges that were never persisted, instead of guessing from content hashes (which made purged
-- or edited memories come back).
ALTER TABLE `messages` ADD `persisted_at` text;
--> statement-breakpoint
ALTER TABLE `messages` ADD `memory_ids` text;
--> statement-breakpoint
-- Existing exchanges: the previous recovery retried each of them at every start, so they are treated as
-- persisted (re-creating them now is exactly the resurrection this migration removes).
UPDATE `messages` SET `persisted_at` = `created_at` WHERE `role` = 'assistant';
--> statement-breakpoint
-- Exchanges through the OpenAI-compatible API have no conversation: this outbox holds each one until its
-- memories are written (the row is deleted in the same transaction), so recovery can finish it.
CREATE TABLE `pending_exchanges` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`user_content` text NOT NULL,
	`assistant_content` text NOT NULL,
	`timestamp` text NOT NULL,
	`source` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- When a memory's content was last edited (null: never). Recency uses the later of timestamp and this.
ALTER TABLE `memories` ADD `updated_at` text;
--> statement-breakpoint
-- A memory may belong to several documents (a chunk skipped at ingestion because another document holds it).
CREATE TABLE `document_chunks` (
	`document_id` text NOT NULL,
	`memory_id` text NOT NULL,
	`chunk_index` integer,
	PRIMARY KEY(`document_id`, `memory_id`)
);
--> statement-breakpoint
CREATE INDEX `document_chunks_memory_idx` ON `document_chunks` (`memory_id`);
--> statement-breakpoint
INSERT OR IGNORE INTO `document_chunks` (`document_id`, `memory_id`, `chunk_index`)
  SELECT `document_id`, `id`, `chunk_index` FROM `memories` WHERE `document_id` IS NOT NULL;
--> statement-breakpoint
-- ChatGPT exchanges imported before were stored as kind chat; they are imports (which decay only if the user opts in).
UPDATE `memories` SET `kind` = 'import' WHERE `kind` = 'chat' AND `conversation_id` LIKE 'chatgpt:%';
