/**
 * `npm run backup [-- --out FILE]`: a consistent copy of the store, safe while Memo runs.
 * Default destination: <data>/backups/memory-<UTC timestamp>.db. Restore: stop Memo, copy the backup
 * over data/memory/memory.db (remove memory.db-wal and memory.db-shm), start Memo. The key file that seals
 * saved provider keys (data/secret.key) is not in the backup; the script says so and how to keep both.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { dataDir, dbPath } from "../server/core/config";
import { backupDatabase, keyFileAdvice } from "../server/ops/backup";
import { secretKeyPath } from "../server/core/secret-box";

const { values } = parseArgs({ options: { out: { type: "string" } } });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const dest = values.out ?? path.join(dataDir(), "backups", `memory-${stamp}.db`);
backupDatabase(dbPath(), dest)
  .then((r) => {
    console.log(`backup: wrote ${r.file} (${(r.bytes / 1048576).toFixed(1)} MB), verified`);
    console.log(keyFileAdvice(secretKeyPath()));
  })
  .catch((e: unknown) => {
    console.error(`backup failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
