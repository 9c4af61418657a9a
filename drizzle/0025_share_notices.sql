-- Telling a person a space was shared with them (issue 48): a share not yet seen by its person is a notice on
-- their chat page until they dismiss it or add the space to a chat. `seen_at` is when they did (null: not
-- yet). Sharing anew or changing read ↔ write sets it back to null, so the person is told again.
ALTER TABLE `space_shares` ADD `seen_at` text;
