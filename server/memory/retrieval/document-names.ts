import type Database from "better-sqlite3";

/*
 * A document's name is read only in the memory's own space: a memory whose document_id names another
 * space's document (an import planted it, issue 55) shows no name rather than someone else's file name.
 */

/** The name of each memory's own document (memories.document_id), by memory id. */
export function documentNames(db: Database.Database, memoryIds: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (memoryIds.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT m.id AS mid, d.name FROM memories m JOIN documents d ON d.id = m.document_id AND d.space_id = m.space_id
        WHERE m.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify([...new Set(memoryIds)])) as { mid: string; name: string }[];
  for (const r of rows) out.set(r.mid, r.name);
  return out;
}

/** Every document a memory belongs to, by memory id (names in link order). */
export function documentSources(
  db: Database.Database,
  memoryIds: string[],
): Map<string, { id: string; name: string }[]> {
  const out = new Map<string, { id: string; name: string }[]>();
  if (memoryIds.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT l.memory_id AS mid, d.id, d.name FROM document_chunks l JOIN memories m ON m.id = l.memory_id
         JOIN documents d ON d.id = l.document_id AND d.space_id = m.space_id
        WHERE l.memory_id IN (SELECT value FROM json_each(?)) ORDER BY l.rowid`,
    )
    .all(JSON.stringify([...new Set(memoryIds)])) as { mid: string; id: string; name: string }[];
  for (const r of rows) {
    const list = out.get(r.mid) ?? [];
    list.push({ id: r.id, name: r.name });
    out.set(r.mid, list);
  }
  return out;
}

/** Add `documentName` (the first source) and `documentNames` (every source) to results from documents. */
export function withDocumentNames<T extends { id: string; documentId: string | null }>(
  db: Database.Database,
  items: T[],
): (T & { documentName: string | null; documentNames: string[] })[] {
  const names = documentNames(
    db,
    items.filter((i) => i.documentId).map((i) => i.id),
  );
  const sources = documentSources(
    db,
    items.filter((i) => i.documentId).map((i) => i.id),
  );
  return items.map((i) => {
    const all = (sources.get(i.id) ?? []).map((s) => s.name);
    const first = i.documentId ? (names.get(i.id) ?? all[0] ?? null) : null;
    return { ...i, documentName: first, documentNames: all.length ? all : first ? [first] : [] };
  });
}

/**
 * The section a document chunk sits under: its opening Markdown heading lines (ingest/chunk.ts repeats
 * them in continuation windows), ATX or setext, as a path outermost first ("Guide › Install").
 */
export function chunkSection(content: string): string | null {
  const lines = content.split("\n");
  const path: { level: number; title: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const atx = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    const setext = atx ? null : /^ {0,3}(=+|-+)[ \t]*$/.exec(lines[i + 1] ?? "");
    if (!atx && !setext) break; // the section's text begins
    const level = atx ? atx[1]!.length : setext![1]!.startsWith("=") ? 1 : 2;
    const title = atx ? atx[2]!.trim() : line.trim();
    while (path.length && path.at(-1)!.level >= level) path.pop();
    path.push({ level, title });
    if (setext) i++;
  }
  return path.length ? path.map((h) => h.title).join(" › ") : null;
}
