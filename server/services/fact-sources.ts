/**
 * Where a fact came from, for the "What Memo knows" page: each source memory with what the page links to —
 * the chat message its exchange was (conversation id + the assistant message whose memory_ids name it) or
 * the document it is a chunk of. Only for a fact the acting person may read (another's answers 404). A
 * shared space's trash is its owner's alone (issue 48): a trashed source is listed (marked not live) for the
 * space's person only; to a sharee it is as missing as it is everywhere else (visibleMemoryScan).
 */
import type Database from "better-sqlite3";
import { visibleMemoryScan, visibleScan } from "../core/acting";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { getFact } from "../memory/facts/store";
import type { MemoryKind } from "../memory/store";

export interface FactSourceLink {
  memoryId: string;
  /** false: the memory is in the trash (the fact stays while another source is live). */
  live: boolean;
  kind: MemoryKind;
  timestamp: string;
  /** The start of the memory's text (at most 300 characters). */
  excerpt: string;
  /** The chat it came from, while that conversation exists; null otherwise. */
  conversationId: string | null;
  /** The assistant message of the exchange (link: /c/<conversationId>#<messageId>); null when not known. */
  messageId: string | null;
  documentId: string | null;
  documentName: string | null;
}

const EXCERPT_CHARS = 300;

function sourceRows(db: Database.Database, factId: string) {
  return db
    .prepare(
      `SELECT m.id AS memoryId, m.space_id AS spaceId, m.soft_deleted AS sd, m.kind, m.timestamp, substr(m.content, 1, ${EXCERPT_CHARS}) AS excerpt,
         c.id AS conversationId,
         (SELECT msg.id FROM messages msg, json_each(msg.memory_ids) j
           WHERE msg.conversation_id = c.id AND j.value = m.id LIMIT 1) AS messageId,
         coalesce(m.document_id, (SELECT l.document_id FROM document_chunks l WHERE l.memory_id = m.id ORDER BY l.rowid LIMIT 1)) AS docId
       FROM fact_sources s JOIN memories m ON m.id = s.memory_id
       LEFT JOIN conversations c ON (c.id = m.conversation_id OR (c.import_source = m.conversation_id AND c.space_id = m.space_id))
         AND ${visibleScan("c.space_id")}
       WHERE s.fact_id = ? AND ${visibleMemoryScan("m.space_id", "m.soft_deleted")}
       ORDER BY m.timestamp, m.rid`,
    )
    .all(factId) as {
    memoryId: string;
    spaceId: string;
    sd: number;
    kind: MemoryKind;
    timestamp: string;
    excerpt: string;
    conversationId: string | null;
    messageId: string | null;
    docId: string | null;
  }[];
}

export function factSourcesFor(ctx: MemoContext, id: string): { factId: string; sources: FactSourceLink[] } {
  if (!getFact(ctx.db, id)) throw new ServiceError(404, `fact ${id} not found`);
  // A document's name is read in the memory's own space only (an imported id may name another's: issue 55).
  const doc = ctx.db.prepare("SELECT name FROM documents WHERE id = ? AND space_id = ?");
  return {
    factId: id,
    sources: sourceRows(ctx.db, id).map((r) => {
      const name = r.docId ? ((doc.get(r.docId, r.spaceId) as { name: string } | undefined)?.name ?? null) : null;
      return {
        memoryId: r.memoryId,
        live: !r.sd,
        kind: r.kind,
        timestamp: r.timestamp,
        excerpt: r.excerpt,
        conversationId: r.conversationId,
        messageId: r.conversationId ? r.messageId : null,
        documentId: name === null ? null : r.docId,
        documentName: name,
      };
    }),
  };
}
