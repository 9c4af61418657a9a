-- Learning facts (issue 42 item 2): a persisted queue of extraction jobs, so that a restart, a crash or a
-- provider that is down loses nothing (server/memory/facts/queue.ts; the runner is server/chat/fact-learner.ts).
-- One job per exchange (a chat exchange, or one memory of a document, an import or the back-fill), with the
-- memories it came from; every attempt on the record (Settings counts a person's calls per provider from it).
-- Opt-in learning over existing memory (a document, an import, "learn from my existing memory"): a run that
-- its jobs belong to, with its count, progress and Stop.
CREATE TABLE `fact_learn_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL CHECK (`kind` IN ('document', 'import', 'backfill')),
	`space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE CASCADE,
	`target` text,
	`status` text DEFAULT 'running' NOT NULL CHECK (`status` IN ('running', 'stopped', 'done')),
	`total` integer NOT NULL,
	`calls` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `fact_learn_runs_target_idx` ON `fact_learn_runs` (`kind`, `target`);
--> statement-breakpoint
CREATE TABLE `fact_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE CASCADE,
	`origin` text NOT NULL CHECK (`origin` IN ('chat', 'api', 'document', 'import', 'backfill')),
	`run_id` text REFERENCES `fact_learn_runs`(`id`) ON DELETE CASCADE,
	`message_id` text REFERENCES `messages`(`id`) ON DELETE SET NULL,
	`provider` text,
	`model` text,
	`at` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL CHECK (`status` IN ('queued', 'running', 'done', 'failed', 'skipped', 'stopped')),
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`facts_added` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `fact_jobs_due_idx` ON `fact_jobs` (`status`, `next_at`);
--> statement-breakpoint
CREATE INDEX `fact_jobs_message_idx` ON `fact_jobs` (`message_id`);
--> statement-breakpoint
CREATE INDEX `fact_jobs_run_idx` ON `fact_jobs` (`run_id`, `status`);
--> statement-breakpoint
-- The memories a job learns from (the facts' sources); a purged memory leaves its jobs with fewer.
CREATE TABLE `fact_job_sources` (
	`job_id` integer NOT NULL REFERENCES `fact_jobs`(`id`) ON DELETE CASCADE,
	`memory_id` text NOT NULL REFERENCES `memories`(`id`) ON DELETE CASCADE,
	`ord` integer NOT NULL,
	PRIMARY KEY (`job_id`, `memory_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `fact_job_sources_memory_idx` ON `fact_job_sources` (`memory_id`);
--> statement-breakpoint
-- Every attempt at a job: which provider, what was sent (the "Sent to" record), how it ended: a good answer
-- (ok), bad model output, a provider error, or a good answer the store could not take (store_error).
CREATE TABLE `fact_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` integer NOT NULL REFERENCES `fact_jobs`(`id`) ON DELETE CASCADE,
	`call_id` text NOT NULL,
	`at` text NOT NULL,
	`provider_key` text NOT NULL,
	`outcome` text NOT NULL CHECK (`outcome` IN ('ok', 'bad_output', 'provider_error', 'store_error')),
	`detail` text,
	`facts_added` integer DEFAULT 0 NOT NULL,
	`facts_replaced` integer DEFAULT 0 NOT NULL,
	`ms` real,
	`sent` text
);
--> statement-breakpoint
CREATE INDEX `fact_attempts_job_idx` ON `fact_attempts` (`job_id`);
