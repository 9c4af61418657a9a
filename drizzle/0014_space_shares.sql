-- Shared spaces (issue 32, item 4). A person shares one of their spaces with chosen people, read-only or
-- read-write; only the space's person manages its shares. Deleting (or renaming) the space moves or removes
-- its shares with every other row that names it (server/memory/store/spaces.ts walks every foreign key to
-- spaces); removing a person removes the shares made to them.
CREATE TABLE `space_shares` (
	`space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE CASCADE,
	`person_id` text NOT NULL REFERENCES `people`(`id`) ON DELETE CASCADE,
	`mode` text DEFAULT 'read' NOT NULL CHECK (`mode` IN ('read', 'write')),
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY (`space_id`, `person_id`)
);
--> statement-breakpoint
CREATE INDEX `space_shares_person_idx` ON `space_shares` (`person_id`);--> statement-breakpoint
-- A space shared with a person reaches their turns only when it is added to the conversation explicitly:
-- the conversation stays theirs (in their own space); these rows name the extra spaces its recall reads.
CREATE TABLE `conversation_spaces` (
	`conversation_id` text NOT NULL REFERENCES `conversations`(`id`) ON DELETE CASCADE,
	`space_id` text NOT NULL REFERENCES `spaces`(`id`) ON DELETE CASCADE,
	PRIMARY KEY (`conversation_id`, `space_id`)
);
--> statement-breakpoint
-- Who wrote a memory into someone else's space (a read-write share); NULL: the space's own person.
ALTER TABLE `memories` ADD `written_by` text;
