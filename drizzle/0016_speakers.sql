-- Who said what, stored with each memory (issue 31): `speakers` is JSON, a list of spans
-- [{"role"?: "user"|"assistant", "name"?: string, "start": n, "end": n}], each one speaker's own words as
-- UTF-16 offsets [start, end) into `content` (server/memory/store/chunker.ts SpeakerSpan). A chat exchange is one
-- memory holding the user's message and the reply (an imported one two named people), so a single speaker
-- column could not say who said which part. NULL: not known (documents, memories edited since, old rows below).
ALTER TABLE `memories` ADD `speakers` text;--> statement-breakpoint
-- Backfill from stored structure only, never from the text's "User:" labels: a chat memory recorded on its
-- assistant message (messages.memory_ids) gets the user span from the conversation's user message before
-- it and the assistant span from the reply, and only when the memory's content is exactly what the write
-- path stores for that pair (each part's whitespace collapsed, as chunkWords does): an exchange stored as
-- several chunks, or a reply whose cut-short note was stripped, stays NULL. utf16_length is registered
-- by openDb (server/db/index.ts) because JavaScript offsets count UTF-16 units, not SQLite's characters.
WITH pairs AS (
  SELECT j.value AS memory_id, a.conversation_id AS conversation_id,
    (SELECT u.content FROM messages u
      WHERE u.conversation_id = a.conversation_id AND u.role = 'user'
        AND (u.created_at < a.created_at OR (u.created_at = a.created_at AND u.rowid < a.rowid))
      ORDER BY u.created_at DESC, u.rowid DESC LIMIT 1) AS user_text,
    a.content AS reply
  FROM messages a, json_each(a.memory_ids) j
  WHERE a.role = 'assistant' AND a.memory_ids IS NOT NULL AND json_valid(a.memory_ids)
),
norm AS (
  SELECT memory_id, conversation_id, trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(user_text, char(10), ' '), char(13), ' '), char(9), ' '), char(12), ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' ')) AS u, trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(reply, char(10), ' '), char(13), ' '), char(9), ' '), char(12), ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' ')) AS r
  FROM pairs WHERE user_text IS NOT NULL
)
UPDATE `memories` SET `speakers` = json_array(
    json_object('role', 'user', 'start', 6, 'end', 6 + utf16_length(n.u)),
    json_object('role', 'assistant', 'start', 18 + utf16_length(n.u), 'end', 18 + utf16_length(n.u) + utf16_length(n.r))
  )
FROM norm n
WHERE `memories`.id = n.memory_id AND `memories`.conversation_id = n.conversation_id AND `memories`.kind = 'chat'
  AND `memories`.chunk_index IS NULL AND n.u != '' AND n.r != ''
  AND `memories`.content = 'User: ' || n.u || ' Assistant: ' || n.r;
