-- memory_vec_rows: a plain-table copy of memory_vec's live vectors (rid = memories.rid, the f32 blob).
-- Retrieval scores every candidate of the legs' union on its stored vector; vec0 answers a point read by
-- walking its chunk's overflow pages (measured 40–680 µs per read at 100K memories), a B-tree row here
-- costs ~10 µs, so the union's ~200 reads drop from ~10 ms to ~2 ms. The price is a second copy of
-- each vector on disk (4 bytes × dimension per memory). Kept in step by server/memory/store/vector-rows.ts.
CREATE TABLE IF NOT EXISTS `memory_vec_rows` (
	`rid` integer PRIMARY KEY NOT NULL,
	`embedding` blob NOT NULL
);
--> statement-breakpoint
INSERT OR REPLACE INTO `memory_vec_rows` (`rid`, `embedding`) SELECT rowid, embedding FROM memory_vec;
