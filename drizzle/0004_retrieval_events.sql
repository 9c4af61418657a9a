CREATE TABLE `retrieval_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`memory_id` text NOT NULL,
	`space_id` text NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `retrieval_events_space_at_idx` ON `retrieval_events` (`space_id`,`at`);--> statement-breakpoint
CREATE INDEX `retrieval_events_memory_idx` ON `retrieval_events` (`memory_id`);