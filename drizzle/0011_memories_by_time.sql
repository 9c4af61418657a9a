-- Memories of a space in time order: the neighbour stage (the exchange just before / after) and the window
-- list (every memory inside a named date window) read ranges of one space's timeline. Without it both
-- scanned the whole space (seconds at 1M memories, measured by npm run bench).
CREATE INDEX `memories_space_time_idx` ON `memories` (`space_id`,`soft_deleted`,`timestamp`);
