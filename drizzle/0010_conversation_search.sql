-- Chat page: pinned conversations, and a full-text index over conversation titles and message text
-- ("Search conversations"). The index is a standalone FTS5 table kept in step by triggers: messages has
-- a text primary key, so its implicit rowid may change on VACUUM and cannot key external content.
ALTER TABLE `conversations` ADD `pinned` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE VIRTUAL TABLE `conversation_fts` USING fts5(conversation_id UNINDEXED, message_id UNINDEXED, text, tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO `conversation_fts` (conversation_id, message_id, text) SELECT id, NULL, title FROM conversations;
--> statement-breakpoint
INSERT INTO `conversation_fts` (conversation_id, message_id, text) SELECT conversation_id, id, content FROM messages;
--> statement-breakpoint
CREATE TRIGGER `conversation_fts_title_ai` AFTER INSERT ON `conversations` BEGIN
  INSERT INTO conversation_fts (conversation_id, message_id, text) VALUES (new.id, NULL, new.title);
END;
--> statement-breakpoint
CREATE TRIGGER `conversation_fts_title_au` AFTER UPDATE OF title ON `conversations` BEGIN
  DELETE FROM conversation_fts WHERE conversation_id = old.id AND message_id IS NULL;
  INSERT INTO conversation_fts (conversation_id, message_id, text) VALUES (new.id, NULL, new.title);
END;
--> statement-breakpoint
CREATE TRIGGER `conversation_fts_ad` AFTER DELETE ON `conversations` BEGIN
  DELETE FROM conversation_fts WHERE conversation_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `conversation_fts_msg_ai` AFTER INSERT ON `messages` BEGIN
  INSERT INTO conversation_fts (conversation_id, message_id, text) VALUES (new.conversation_id, new.id, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `conversation_fts_msg_au` AFTER UPDATE OF content ON `messages` BEGIN
  DELETE FROM conversation_fts WHERE message_id = old.id;
  INSERT INTO conversation_fts (conversation_id, message_id, text) VALUES (new.conversation_id, new.id, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `conversation_fts_msg_ad` AFTER DELETE ON `messages` BEGIN
  DELETE FROM conversation_fts WHERE message_id = old.id;
END;
