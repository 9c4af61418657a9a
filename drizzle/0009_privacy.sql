ALTER TABLE `conversations` ADD `recall_memory` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `store_memory` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `temporary` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `expires_at` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `last_seen_at` text;--> statement-breakpoint
CREATE INDEX `conversations_temporary_idx` ON `conversations` (`temporary`,`expires_at`);--> statement-breakpoint
ALTER TABLE `messages` ADD `sent` text;
