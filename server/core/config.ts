import path from "node:path";

/** Paths and environment read in one place. Functions, not constants: tests change env per case. */
export function dataDir(): string {
  return path.resolve(process.env.MEMO_DATA_DIR ?? path.join(/* turbopackIgnore: true */ process.cwd(), "data"));
}

export function dbPath(): string {
  return process.env.MEMO_DB_PATH ?? path.join(dataDir(), "memory", "memory.db");
}

export function modelsDir(): string {
  return path.join(dataDir(), "models");
}

export function migrationsDir(): string {
  return path.join(/* turbopackIgnore: true */ process.cwd(), "drizzle");
}

/** The embedding server's port: MEMO_EMBED_PORT, else 0 (the child picks a free loopback port). */
export function embedPort(): number {
  return Number(process.env.MEMO_EMBED_PORT ?? 0);
}
