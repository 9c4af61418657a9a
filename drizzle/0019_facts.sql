-- Facts (issue 42): short self-contained statements learned from (or added beside) memories, with their
-- source memories, when they became true (valid_from), when Memo learned them (recorded_at), and, once
-- replaced, valid_to + superseded_by (replaced facts are kept as history). A fact is CURRENT when
-- valid_to, superseded_by and deleted_at are null; FORGOTTEN (deleted_at set) facts are out of every index
-- and restorable until their sources are purged. server/memory/facts/ reads and writes these tables.
-- `rid` is the integer key of the fact's keyword row (kw_f_<n>, drizzle/0018) and its vector.
CREATE TABLE `facts` (
	`id` text PRIMARY KEY NOT NULL,
	`rid` integer NOT NULL,
	`space_id` text NOT NULL REFERENCES `spaces`(`id`),
	`text` text NOT NULL,
	`content_hash` text NOT NULL,
	`valid_from` text NOT NULL,
	`recorded_at` text NOT NULL,
	`valid_to` text,
	`superseded_by` text,
	`origin` text NOT NULL CHECK (`origin` IN ('learned', 'person', 'import')),
	`confirmed_at` text,
	`written_by` text,
	`deleted_at` text,
	-- Why it was forgotten: 'person' (deleted by a person), 'sources' (every source memory went).
	`deleted_reason` text CHECK (`deleted_reason` IN ('person', 'sources')),
	-- The fact whose forgetting took this one along (itself for the fact that was deleted or lost its
	-- sources; a later fact for its earlier versions): what a restore of that fact's sources brings back.
	`deleted_root` text,
	`embedding_model` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `facts_rid_unique` ON `facts` (`rid`);
--> statement-breakpoint
CREATE INDEX `facts_space_idx` ON `facts` (`space_id`, `deleted_at`, `superseded_by`);
--> statement-breakpoint
CREATE INDEX `facts_superseded_by_idx` ON `facts` (`superseded_by`);
--> statement-breakpoint
CREATE INDEX `facts_deleted_root_idx` ON `facts` (`deleted_root`);
--> statement-breakpoint
-- Facts whose vector is of another model than the store's (a re-index catching up): an indexed probe per request.
CREATE INDEX `facts_model_idx` ON `facts` (`embedding_model`);
--> statement-breakpoint
-- The memories a fact came from (at least one, of its space). No foreign key to memories: a purge removes
-- these rows itself (server/memory/facts/cascade.ts), in the purge's transaction.
CREATE TABLE `fact_sources` (
	`fact_id` text NOT NULL REFERENCES `facts`(`id`) ON DELETE CASCADE,
	`memory_id` text NOT NULL,
	PRIMARY KEY (`fact_id`, `memory_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `fact_sources_memory_idx` ON `fact_sources` (`memory_id`);
--> statement-breakpoint
-- One vector per live fact (the memories' embedder and document prefix). A plain table: a space's facts are
-- few enough for an exact cosine scan, and a vector of another model is told apart by facts.embedding_model.
CREATE TABLE `fact_vectors` (
	`rid` integer PRIMARY KEY NOT NULL REFERENCES `facts`(`rid`) ON DELETE CASCADE,
	`space_id` text NOT NULL REFERENCES `spaces`(`id`),
	`embedding` blob NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fact_vectors_space_idx` ON `fact_vectors` (`space_id`);
--> statement-breakpoint
-- Vectors of forgotten facts, parked so a restore needs no embedder (as memory_vec_trash for memories).
CREATE TABLE `fact_vector_trash` (
	`rid` integer PRIMARY KEY NOT NULL REFERENCES `facts`(`rid`) ON DELETE CASCADE,
	`embedding` blob NOT NULL
);
--> statement-breakpoint
-- live_counts (drizzle/0017, 0018) gains the facts of each space: how many are live (not forgotten) and
-- how many changes were made to them (text, liveness, supersession, space, model): what per-space fact
-- caches compare. Kept by triggers, whatever code path writes.
ALTER TABLE `live_counts` ADD `facts_live` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `live_counts` ADD `fact_writes` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TRIGGER `live_counts_fact_insert` AFTER INSERT ON `facts` BEGIN
	INSERT INTO `live_counts` (`space_id`, `live`, `writes`, `facts_live`, `fact_writes`)
		VALUES (new.`space_id`, 0, 0, new.`deleted_at` IS NULL, 1)
		ON CONFLICT (`space_id`) DO UPDATE SET `facts_live` = `facts_live` + excluded.`facts_live`,
			`fact_writes` = `fact_writes` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `live_counts_fact_delete` AFTER DELETE ON `facts` BEGIN
	UPDATE `live_counts` SET `facts_live` = `facts_live` - (old.`deleted_at` IS NULL), `fact_writes` = `fact_writes` + 1
		WHERE `space_id` = old.`space_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `live_counts_fact_update`
	AFTER UPDATE OF `deleted_at`, `space_id`, `content_hash`, `superseded_by`, `valid_to`, `embedding_model` ON `facts`
	WHEN (old.`deleted_at` IS NULL) <> (new.`deleted_at` IS NULL) OR old.`space_id` <> new.`space_id`
		OR old.`content_hash` <> new.`content_hash` OR old.`superseded_by` IS NOT new.`superseded_by`
		OR old.`valid_to` IS NOT new.`valid_to` OR old.`embedding_model` <> new.`embedding_model` BEGIN
	UPDATE `live_counts` SET `facts_live` = `facts_live` - (old.`deleted_at` IS NULL), `fact_writes` = `fact_writes` + 1
		WHERE `space_id` = old.`space_id`;
	INSERT INTO `live_counts` (`space_id`, `live`, `writes`, `facts_live`, `fact_writes`)
		VALUES (new.`space_id`, 0, 0, new.`deleted_at` IS NULL, 1)
		ON CONFLICT (`space_id`) DO UPDATE SET `facts_live` = `facts_live` + excluded.`facts_live`,
			`fact_writes` = `fact_writes` + (old.`space_id` <> new.`space_id`);
END;
