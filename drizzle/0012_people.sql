-- A household server (issue 32): several people, each with their own memory, chats and login.
-- The owner (today's password holder) is the person 'owner', role admin. Its password stays in auth_owner
-- (npm run set-password and Settings → Access keep writing it there): one source of truth, so the owner
-- row's password_hash is NULL. Every other person's scrypt hash (same scheme) is kept here.
CREATE TABLE `people` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`login` text NOT NULL,
	`password_hash` text,
	`role` text DEFAULT 'member' NOT NULL,
	`disabled` integer DEFAULT 0 NOT NULL,
	`must_change_password` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `people_login_unique` ON `people` (lower(`login`));--> statement-breakpoint
INSERT INTO `people` (`id`, `name`, `login`, `role`) VALUES ('owner', 'Owner', 'owner', 'admin');--> statement-breakpoint
-- Every existing space (and through it every memory, conversation, document and pending exchange) is the
-- owner's. A space's key is its name for the owner, '<person id>~<name>' for anyone else, so two people can
-- each have `personal` while every table that names a space keeps its foreign key unchanged.
ALTER TABLE `spaces` ADD `person_id` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
CREATE INDEX `spaces_person_idx` ON `spaces` (`person_id`);--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `person_id` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
CREATE INDEX `auth_sessions_person_idx` ON `auth_sessions` (`person_id`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `person_id` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
CREATE INDEX `api_tokens_person_idx` ON `api_tokens` (`person_id`);
