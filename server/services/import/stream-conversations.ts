/**
 * A conversation export read as a stream (issue 55): the file's top-level array is parsed with stream-json
 * and handed on one conversation at a time, so the server holds one conversation (plus the parser's buffer),
 * never the file — whatever its size. Each conversation is read by its format (chatgpt.ts, claude.ts) as
 * readConversations would (conversations.ts): a malformed one is a problem line, the others give exchanges.
 */
import fs from "node:fs";
import streamArray from "stream-json/streamers/stream-array.js";
import { ServiceError } from "../../core/errors";
import {
  type ConversationFormat,
  type Exchange,
  exchangesOf,
  MalformedConversation,
  problemLine,
  type ReadConversation,
} from "./conversations";

/** One conversation of the file, as read. */
export interface StreamedConversation {
  /** Its place in the file's list (0-based). */
  index: number;
  /** The conversation as read (null: malformed, see `problem`). */
  read: ReadConversation | null;
  problem: string | null;
  exchanges: Exchange[];
  /** Messages left out (system, tool, hidden, non-text). */
  skipped: number;
  /** Bytes of the file read when this conversation was complete. */
  bytesRead: number;
}

/** Nesting deeper than this, or one string longer (UTF-16 units), is refused: it bounds what one value can take. */
const MAX_DEPTH = 64;
const MAX_STRING = 32 * 1024 * 1024;

/**
 * The conversations of `file`, from the `from`-th on (the ones before are parsed past, not read). A file
 * whose top level is not a list, whose first conversation is another format's, or which is not valid JSON is
 * a 400 thrown when reading reaches the problem (conversations before it were handed on).
 */
export async function* streamConversations(
  file: string,
  format: ConversationFormat,
  opts: { from?: number; now?: Date } = {},
): AsyncGenerator<StreamedConversation> {
  const from = opts.from ?? 0;
  const now = opts.now ?? new Date();
  const source = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
  const items = streamArray.withParserAsStream({ maxDepth: MAX_DEPTH, maxPackedLength: MAX_STRING });
  source.on("error", (e) => items.destroy(e));
  source.pipe(items);
  let index = -1;
  try {
    for await (const item of items as AsyncIterable<{ key: number; value: unknown }>) {
      index = item.key;
      if (index === 0) {
        const other = format.otherFormat([item.value]);
        if (other) throw new ServiceError(400, other);
      }
      if (index < from) continue;
      yield readOne(item.value, index, format, now, source.bytesRead);
    }
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    if (/top-level object should be an array/i.test(msg))
      throw new ServiceError(400, `conversations.json must be a JSON array of conversations (${format.expected})`);
    throw new ServiceError(
      400,
      `the file is not valid JSON${index < 0 ? "" : ` after conversation ${index + 1}`} (${msg})`,
    );
  } finally {
    source.destroy();
    items.destroy();
  }
}

function readOne(
  value: unknown,
  index: number,
  format: ConversationFormat,
  now: Date,
  bytesRead: number,
): StreamedConversation {
  try {
    const read = format.read(value, index);
    const { exchanges, skipped } = exchangesOf(read, now);
    return { index, read, problem: null, exchanges, skipped, bytesRead };
  } catch (e) {
    if (!(e instanceof MalformedConversation)) throw e;
    return { index, read: null, problem: problemLine(value, index, e), exchanges: [], skipped: 0, bytesRead };
  }
}
