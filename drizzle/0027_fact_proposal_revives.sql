-- Untrusted text proposes; the person decides (issue 54). A proposal may now be a fact that replaces nothing
-- (every fact a document, an import, the back-fill or another person's words taught), or a fact from any path
-- that is as close to a replaced fact as the learner's own candidates and would stand beside its replacement:
-- `revives` is that replaced fact's id (null: none), so What Memo knows can say what confirming it brings back.
ALTER TABLE `fact_proposals` ADD `revives` text;
--> statement-breakpoint
-- A fact taken back by "Undo" under a reply (reply-facts.ts) rather than deleted on What Memo knows: the Facts
-- line says which ("1 undone", "1 deleted"); both are deleted_reason 'person'.
ALTER TABLE `facts` ADD `undone_at` text;
