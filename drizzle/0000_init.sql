CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`title` text DEFAULT 'New conversation' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`name` text NOT NULL,
	`mime` text NOT NULL,
	`size` integer NOT NULL,
	`content_hash` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`chunks_total` integer DEFAULT 0 NOT NULL,
	`chunks_done` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `job_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`status` text NOT NULL,
	`result` text,
	`error` text,
	`duration_ms` real
);
--> statement-breakpoint
CREATE TABLE `memories` (
	`id` text PRIMARY KEY NOT NULL,
	`rid` integer NOT NULL,
	`space_id` text NOT NULL,
	`content` text NOT NULL,
	`timestamp` text NOT NULL,
	`importance` integer DEFAULT 1 NOT NULL,
	`retrieval_count` integer DEFAULT 0 NOT NULL,
	`last_retrieved_at` text,
	`pinned` integer DEFAULT false NOT NULL,
	`soft_deleted` integer DEFAULT false NOT NULL,
	`deleted_at` text,
	`kind` text DEFAULT 'chat' NOT NULL,
	`conversation_id` text,
	`document_id` text,
	`chunk_index` integer,
	`content_hash` text NOT NULL,
	`embedding_model` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memories_rid_unique` ON `memories` (`rid`);--> statement-breakpoint
CREATE INDEX `memories_space_live_idx` ON `memories` (`space_id`,`soft_deleted`);--> statement-breakpoint
CREATE INDEX `memories_hash_idx` ON `memories` (`space_id`,`content_hash`);--> statement-breakpoint
CREATE INDEX `memories_conversation_idx` ON `memories` (`conversation_id`);--> statement-breakpoint
CREATE INDEX `memories_document_idx` ON `memories` (`document_id`);--> statement-breakpoint
CREATE INDEX `memories_timestamp_idx` ON `memories` (`timestamp`);--> statement-breakpoint
CREATE TABLE `memory_vec_trash` (
	`rid` integer PRIMARY KEY NOT NULL,
	`embedding` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`role` text NOT NULL,
	`content` text NOT NULL,
	`recalled` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_conversation_idx` ON `messages` (`conversation_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `spaces` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
