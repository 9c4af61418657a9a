/**
 * The Drizzle schema (drizzle.config.ts and server/db/index.ts read this file): the memory tables, the
 * access-control tables and the background work's tables, one file each.
 */
export * from "./schema-memory";
export * from "./schema-auth";
export * from "./schema-jobs";
