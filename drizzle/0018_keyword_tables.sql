-- Keyword statistics per space (issue 43): FTS5's bm25 counted every person's memories, so one person's
-- writes moved another's scores, order and confidence. Each space gets its own FTS5 tables (kw_m_<n> for
-- memories, kw_f_<n> for facts; server/memory/store/keyword-index.ts makes them on a space's first write
-- and moves a store's old memory_fts rows into them once). `n` never repeats (AUTOINCREMENT); the foreign
-- key lets renaming a space carry its tables (spaces.ts moves every row that refers to a space).
CREATE TABLE `keyword_tables` (
	`n` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`space_id` text NOT NULL REFERENCES `spaces`(`id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `keyword_tables_space_unique` ON `keyword_tables` (`space_id`);
--> statement-breakpoint
-- live_counts.writes: changes to a space's memories (text, liveness, space), counted by the same triggers.
-- What retrieval's caches (document frequencies, the background sample) compare to decide they are stale:
-- a store-wide write log made one person's writes refresh another's caches, and so move their results.
ALTER TABLE `live_counts` ADD `writes` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP TRIGGER `live_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `live_counts_delete`;
--> statement-breakpoint
DROP TRIGGER `live_counts_update`;
--> statement-breakpoint
CREATE TRIGGER `live_counts_insert` AFTER INSERT ON `memories` BEGIN
	INSERT INTO `live_counts` (`space_id`, `live`, `writes`) VALUES (new.`space_id`, new.`soft_deleted` = 0, 1)
		ON CONFLICT (`space_id`) DO UPDATE SET `live` = `live` + excluded.`live`, `writes` = `writes` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `live_counts_delete` AFTER DELETE ON `memories` BEGIN
	UPDATE `live_counts` SET `live` = `live` - (old.`soft_deleted` = 0), `writes` = `writes` + 1
		WHERE `space_id` = old.`space_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `live_counts_update` AFTER UPDATE OF `soft_deleted`, `space_id`, `content_hash` ON `memories`
	WHEN old.`soft_deleted` <> new.`soft_deleted` OR old.`space_id` <> new.`space_id` OR old.`content_hash` <> new.`content_hash` BEGIN
	UPDATE `live_counts` SET `live` = `live` - (old.`soft_deleted` = 0), `writes` = `writes` + 1
		WHERE `space_id` = old.`space_id`;
	INSERT INTO `live_counts` (`space_id`, `live`, `writes`) VALUES (new.`space_id`, new.`soft_deleted` = 0, 1)
		ON CONFLICT (`space_id`) DO UPDATE SET `live` = `live` + excluded.`live`,
			`writes` = `writes` + (old.`space_id` <> new.`space_id`);
END;
