-- Write log of the memories whose vector may have changed, so that an in-memory ANN index in another
-- process (or loaded from an older save) catches up on exactly those rows instead of rebuilding.
-- Filled by triggers on memories, whatever code path writes; `rid` NULL marks a change that no per-row
-- replay can follow (the vector table was swapped by a re-index): readers rebuild.
CREATE TABLE `vec_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rid` integer
);
--> statement-breakpoint
CREATE TRIGGER `vec_log_insert` AFTER INSERT ON `memories` BEGIN
	INSERT INTO `vec_log` (`rid`) VALUES (new.`rid`);
END;
--> statement-breakpoint
CREATE TRIGGER `vec_log_update` AFTER UPDATE OF `soft_deleted`, `space_id`, `content_hash`, `rid` ON `memories` BEGIN
	INSERT INTO `vec_log` (`rid`) VALUES (old.`rid`);
	INSERT INTO `vec_log` (`rid`) SELECT new.`rid` WHERE new.`rid` <> old.`rid`;
END;
--> statement-breakpoint
CREATE TRIGGER `vec_log_delete` AFTER DELETE ON `memories` BEGIN
	INSERT INTO `vec_log` (`rid`) VALUES (old.`rid`);
END;
--> statement-breakpoint
-- Keep the last ~100K entries: an index further behind than that rebuilds.
CREATE TRIGGER `vec_log_prune` AFTER INSERT ON `vec_log` WHEN new.`seq` % 1024 = 0 BEGIN
	DELETE FROM `vec_log` WHERE `seq` <= new.`seq` - 100000;
END;
