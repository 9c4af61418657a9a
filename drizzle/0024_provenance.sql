-- Provenance of stored exchanges (issue 47, docs/retrieval.md#provenance): what a reply was given.
-- `derived_from`: JSON {"memories": [ids], "facts": [ids]} — the memories and facts recalled into the prompt of
-- the reply this memory stores (null: nothing was recalled, or not a reply: the person's own words, a document).
-- `novelty`: the share of the exchange's content words found in none of those sources (0: it only restated
-- recall; null: not derived). Ranking reads both (retrieval/provenance.ts).
ALTER TABLE `memories` ADD `derived_from` text;
--> statement-breakpoint
ALTER TABLE `memories` ADD `novelty` real;
--> statement-breakpoint
-- An OpenAI-compatible API exchange waits in the outbox with what its reply was given, so recovery keeps it.
ALTER TABLE `pending_exchanges` ADD `recalled` text;
