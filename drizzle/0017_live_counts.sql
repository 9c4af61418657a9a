-- live_counts: live memories per space, kept by triggers on memories whatever code path writes. Retrieval
-- reads the store's and a space's live count every turn (FTS5's idf, "too common to discriminate", the
-- background's size); counting them scanned an index of every memory (12 ms a turn at 100K memories, hidden
-- behind a 5-second cache that a person's next turn has always outlived). A row per space ever written;
-- `live` can be 0.
CREATE TABLE IF NOT EXISTS `live_counts` (
	`space_id` text PRIMARY KEY NOT NULL,
	`live` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR REPLACE INTO `live_counts` (`space_id`, `live`)
	SELECT `space_id`, sum(`soft_deleted` = 0) FROM `memories` GROUP BY `space_id`;
--> statement-breakpoint
CREATE TRIGGER `live_counts_insert` AFTER INSERT ON `memories` WHEN new.`soft_deleted` = 0 BEGIN
	INSERT INTO `live_counts` (`space_id`, `live`) VALUES (new.`space_id`, 1)
		ON CONFLICT (`space_id`) DO UPDATE SET `live` = `live` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `live_counts_delete` AFTER DELETE ON `memories` WHEN old.`soft_deleted` = 0 BEGIN
	UPDATE `live_counts` SET `live` = `live` - 1 WHERE `space_id` = old.`space_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `live_counts_update` AFTER UPDATE OF `soft_deleted`, `space_id` ON `memories`
	WHEN old.`soft_deleted` <> new.`soft_deleted` OR old.`space_id` <> new.`space_id` BEGIN
	UPDATE `live_counts` SET `live` = `live` - 1 WHERE old.`soft_deleted` = 0 AND `space_id` = old.`space_id`;
	INSERT INTO `live_counts` (`space_id`, `live`) SELECT new.`space_id`, 1 WHERE new.`soft_deleted` = 0
		ON CONFLICT (`space_id`) DO UPDATE SET `live` = `live` + 1;
END;
