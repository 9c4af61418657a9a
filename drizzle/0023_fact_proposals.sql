-- Learning from a document, an import or the back-fill must not silently replace what the person said
-- (issue 48): a fact such a run learns that would replace known facts is kept here as a proposal, shown on
-- What Memo knows to be accepted (then it is written, replacing them) or dismissed. `sources` and `replaces`
-- are JSON arrays of memory and fact ids of the same space; `fact_id` is the fact written on acceptance.
CREATE TABLE `fact_proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE CASCADE,
	`run_id` text REFERENCES `fact_learn_runs`(`id`) ON DELETE CASCADE,
	`job_id` integer,
	`text` text NOT NULL,
	`valid_from` text NOT NULL,
	`sources` text NOT NULL,
	`replaces` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL CHECK (`status` IN ('pending', 'accepted', 'dismissed')),
	`fact_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`decided_at` text
);
--> statement-breakpoint
CREATE INDEX `fact_proposals_space_idx` ON `fact_proposals` (`space_id`, `status`);
--> statement-breakpoint
CREATE INDEX `fact_proposals_run_idx` ON `fact_proposals` (`run_id`);
--> statement-breakpoint
-- The opt-in run that wrote a fact (null: a chat exchange, a person, an import through the API): what
-- "Undo this run" takes back as a whole.
ALTER TABLE `facts` ADD `learn_run_id` text;
--> statement-breakpoint
CREATE INDEX `facts_learn_run_idx` ON `facts` (`learn_run_id`);
--> statement-breakpoint
-- Listing facts a page at a time (issue 48 finding 7): the list's order, newest valid_from first, as an index,
-- so that a page after a cursor is a range of it rather than a sort of every fact.
CREATE INDEX `facts_list_idx` ON `facts` (`valid_from`, `recorded_at`, `rid`);
