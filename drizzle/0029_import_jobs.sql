-- Import jobs as rows (issue 55): a received export waits on disk (`file`, under the data folder) and is read
-- as a stream; `next_item`/`next_group` are where the reading stands (the conversation, and the exchange in
-- it, that the next batch starts at), moved in the same transaction as the batch's memories, so that a start
-- after a crash resumes there and nothing is stored twice. `cancel` is a cancel asked for (keep | forget).
-- The memories each job wrote (what "learn facts from this import" and a cancel that forgets read) are
-- `import_job_memories`. The conversations it wrote as chats (or found already imported: `created` 0), in file
-- order, are `import_job_conversations`: the job's result links to them.
CREATE TABLE `import_jobs` (
  `id` text PRIMARY KEY NOT NULL,
  `person_id` text NOT NULL,
  `admin` integer DEFAULT 0 NOT NULL,
  `kind` text NOT NULL,
  `label` text NOT NULL,
  `space` text,
  `file` text,
  `status` text DEFAULT 'queued' NOT NULL,
  `detail` text,
  `problems` text DEFAULT '[]' NOT NULL,
  `bytes_total` integer DEFAULT 0 NOT NULL,
  `bytes_done` integer DEFAULT 0 NOT NULL,
  `next_item` integer DEFAULT 0 NOT NULL,
  `next_group` integer DEFAULT 0 NOT NULL,
  `conversations` integer DEFAULT 0 NOT NULL,
  `exchanges` integer DEFAULT 0 NOT NULL,
  `skipped_messages` integer DEFAULT 0 NOT NULL,
  `undated` integer DEFAULT 0 NOT NULL,
  `malformed` integer DEFAULT 0 NOT NULL,
  `total` integer DEFAULT 0 NOT NULL,
  `done` integer DEFAULT 0 NOT NULL,
  `imported` integer DEFAULT 0 NOT NULL,
  `duplicates` integer DEFAULT 0 NOT NULL,
  `error` text,
  `error_status` integer,
  `cancel` text,
  `queued_at` text NOT NULL,
  `started_at` text,
  `finished_at` text
);
--> statement-breakpoint
CREATE INDEX `import_jobs_person_idx` ON `import_jobs` (`person_id`,`queued_at`);
--> statement-breakpoint
CREATE INDEX `import_jobs_status_idx` ON `import_jobs` (`status`,`queued_at`);
--> statement-breakpoint
CREATE TABLE `import_job_memories` (
  `job_id` text NOT NULL REFERENCES `import_jobs`(`id`) ON DELETE CASCADE,
  `memory_id` text NOT NULL,
  PRIMARY KEY(`job_id`, `memory_id`)
);
--> statement-breakpoint
CREATE TABLE `import_job_conversations` (
  `job_id` text NOT NULL REFERENCES `import_jobs`(`id`) ON DELETE CASCADE,
  `conversation_id` text NOT NULL,
  `created` integer DEFAULT 0 NOT NULL,
  PRIMARY KEY(`job_id`, `conversation_id`)
);
