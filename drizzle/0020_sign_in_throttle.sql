-- Sign-in throttle per target account as well as per address (issue 43, finding 3; server/auth/rate-limit.ts).
-- Each attempt records whom it tried (`account`: a person's id, or '?' and a hash of a sign-in name nobody
-- has; '' for attempts made before this migration, which still count for their address) and, when it came
-- from a device or session already known for that person, which one (`device`). A success clears only the
-- failures it explains: the same account from the same address, or from the same known device.
ALTER TABLE `login_attempts` ADD `account` text DEFAULT '' NOT NULL;
--> statement-breakpoint
ALTER TABLE `login_attempts` ADD `device` text;
--> statement-breakpoint
CREATE INDEX `login_attempts_account_at_idx` ON `login_attempts` (`account`, `at`);
--> statement-breakpoint
-- Known devices: a browser that signed in as a person gets a long-lived random cookie (memo_device) of which
-- only the SHA-256 is kept here, once per person who signed in from it. It is no credential: it only lets
-- that person's sign-in attempts from that browser count apart, so an attack on the account from elsewhere
-- does not hold the person out of their own browser.
CREATE TABLE `login_devices` (
	`secret_hash` text NOT NULL,
	`person_id` text NOT NULL REFERENCES `people`(`id`) ON DELETE CASCADE,
	`created_at` integer NOT NULL,
	`last_used_at` integer NOT NULL,
	PRIMARY KEY (`secret_hash`, `person_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `login_devices_person_idx` ON `login_devices` (`person_id`, `last_used_at`);
