/**
 * Test support (not product code): `n` memory rows written directly, with no vector and no keyword row —
 * for benches and tests that only scan `memories` (bench-person-filter.ts counts them), where the store's
 * write path (embedding, indexes) would cost minutes and measure nothing. Ids `id1`…, rids 1…, one text.
 */
import type Database from "better-sqlite3";

export function insertBareMemories(db: Database.Database, n: number, spaceId = "personal"): void {
  db.prepare("INSERT OR IGNORE INTO spaces (id) VALUES (?)").run(spaceId);
  const ins = db.prepare(
    "INSERT INTO memories (id, rid, space_id, content, timestamp, content_hash, embedding_model) VALUES (?, ?, ?, 'x', '2026-01-01', ?, 'm')",
  );
  db.transaction(() => {
    for (let i = 1; i <= n; i++) ins.run(`id${i}`, i, spaceId, `h${i}`);
  })();
}
