import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

/**
 * A consistent copy of a live store through SQLite's online backup API: safe while the app runs and
 * writes (the copy is one committed snapshot; WAL content included). The file is created 0600.
 */
export async function backupDatabase(
  source: string,
  dest: string,
): Promise<{ file: string; bytes: number; pages: number }> {
  if (!fs.existsSync(source)) throw new Error(`no store at ${source}`);
  fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
  if (fs.existsSync(dest)) throw new Error(`${dest} exists; choose a new file name`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  sqliteVec.load(db); // the backup copies pages; loading the extension only lets us verify the copy below
  let pages = 0;
  try {
    const partial = `${dest}.partial`;
    fs.writeFileSync(partial, "", { mode: 0o600 });
    await db.backup(partial, {
      progress: ({ totalPages }) => {
        pages = totalPages;
        return 256; // pages per step: keeps each step short so writers are not held up
      },
    });
    fs.chmodSync(partial, 0o600);
    verify(partial);
    fs.renameSync(partial, dest);
  } finally {
    db.close();
  }
  return { file: dest, bytes: fs.statSync(dest).size, pages };
}

/**
 * What `npm run backup` says about the key file (server/core/secret-box.ts): saved provider keys are
 * sealed with it, and it is deliberately not in the backup, so a stolen backup holds no usable key.
 */
export function keyFileAdvice(keyFile: string): string {
  return [
    `backup: the key file ${keyFile} is NOT in this backup: the provider API keys saved in Settings are`,
    "encrypted with it, so the backup alone holds no usable key. Keep a copy of the key file somewhere",
    "other than the backups (e.g. a password manager or another disk). To restore with the keys, put both back:",
    "the backup as data/memory/memory.db and the key file as data/secret.key (mode 0600). Without the key file",
    "everything else restores; only the provider keys must be entered again in Settings → Providers.",
  ].join("\n");
}

/** Open the copy and check its integrity and the three-table counts before calling it a backup. */
function verify(file: string): void {
  const db = new Database(file, { readonly: true });
  try {
    sqliteVec.load(db);
    const ok = db.pragma("quick_check", { simple: true });
    if (ok !== "ok") throw new Error(`backup failed its integrity check: ${String(ok)}`);
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const live = n("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0");
    const vec = n("SELECT count(*) AS n FROM memory_vec");
    // The keyword index is a table per space (kw_m_<n>, server/memory/store/keyword-index.ts); a store not
    // yet converted from before drizzle/0018 still has the one memory_fts.
    const hasTable = (t: string) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined;
    const fts = hasTable("memory_fts")
      ? n("SELECT count(*) AS n FROM memory_fts")
      : (db.prepare("SELECT n FROM keyword_tables").all() as { n: number }[])
          .filter((k) => hasTable(`kw_m_${k.n}`))
          .reduce((sum, k) => sum + n(`SELECT count(*) AS n FROM "kw_m_${k.n}"`), 0);
    if (live !== vec || live !== fts)
      throw new Error(`backup is inconsistent: memories=${live} vectors=${vec} fts=${fts}`);
  } finally {
    db.close();
  }
}
