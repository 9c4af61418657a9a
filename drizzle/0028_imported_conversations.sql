-- Imported conversations are conversations (issue 55): a ChatGPT or Claude import writes each conversation
-- as a `conversations` row with its messages. `imported_from` is the import format that wrote it
-- ("chatgpt", "claude"; null for Memo's own chats): the sidebar marks it. `import_source` is the
-- `conversation_id` its exchanges' memories carry ("chatgpt:<id in the export>"): deleting the chat forgets
-- them, and re-importing the same file finds the row instead of adding another (one per space and source).
ALTER TABLE `conversations` ADD `imported_from` text;
--> statement-breakpoint
ALTER TABLE `conversations` ADD `import_source` text;
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_import_source_idx` ON `conversations` (`space_id`, `import_source`) WHERE `import_source` IS NOT NULL;
