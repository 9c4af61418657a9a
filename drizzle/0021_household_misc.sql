-- Whose recall a retrieval event is (issue 43): `person_id`, the person whose prompt the memory was recalled
-- into. A recall of one's own memory names the memory and its space, as before; a recall of a memory in a space
-- shared with the person names neither (memory_id and space_id NULL): it is the recaller's, counted in their
-- Analytics, and nothing the space's person later does to the memory or the space changes it. The table is
-- rebuilt because SQLite cannot drop a column's NOT NULL; every existing event was its space's person's.
CREATE TABLE `retrieval_events_new` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`memory_id` text,
	`space_id` text,
	`person_id` text DEFAULT 'owner' NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `retrieval_events_new` (`id`, `memory_id`, `space_id`, `person_id`, `at`)
	SELECT e.`id`, e.`memory_id`, e.`space_id`, coalesce((SELECT s.`person_id` FROM `spaces` s WHERE s.`id` = e.`space_id`), 'owner'), e.`at`
	FROM `retrieval_events` e;
--> statement-breakpoint
DROP TABLE `retrieval_events`;
--> statement-breakpoint
ALTER TABLE `retrieval_events_new` RENAME TO `retrieval_events`;
--> statement-breakpoint
CREATE INDEX `retrieval_events_space_at_idx` ON `retrieval_events` (`space_id`,`at`);
--> statement-breakpoint
CREATE INDEX `retrieval_events_memory_idx` ON `retrieval_events` (`memory_id`);
--> statement-breakpoint
CREATE INDEX `retrieval_events_person_at_idx` ON `retrieval_events` (`person_id`,`at`);
