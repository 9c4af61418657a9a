/**
 * The access-control tables (server/auth/), beside the memory tables (schema-memory.ts); schema.ts re-exports all three
 * (drizzle-kit and server/db/index.ts read that one).
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { now, people } from "./schema-memory";

/**
 * Access control (server/auth/). Used only when Memo listens on a non-loopback address (or
 * MEMO_REQUIRE_LOGIN=1): the owner's password (scrypt, one row), browser sessions and API tokens (only
 * SHA-256 hashes of their secrets are stored), and sign-in attempts for rate limiting.
 */
export const authOwner = sqliteTable("auth_owner", {
  id: integer("id").primaryKey(), // always 1
  passwordHash: text("password_hash").notNull(), // scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>
  updatedAt: text("updated_at").notNull().default(now),
});

export const authSessions = sqliteTable(
  "auth_sessions",
  {
    idHash: text("id_hash").primaryKey(), // sha256 of the cookie's secret, hex
    createdAt: text("created_at").notNull().default(now),
    lastSeenAt: text("last_seen_at").notNull().default(now),
    expiresAt: text("expires_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    personId: text("person_id").notNull().default("owner"),
  },
  (t) => [index("auth_sessions_expires_idx").on(t.expiresAt), index("auth_sessions_person_idx").on(t.personId)],
);

export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(), // sha256 of the token, hex
    prefix: text("prefix").notNull(), // the first characters, to recognise a token in the list
    createdAt: text("created_at").notNull().default(now),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
    /** The person the token acts as. */
    personId: text("person_id").notNull().default("owner"),
  },
  (t) => [index("api_tokens_person_idx").on(t.personId)],
);

export const loginAttempts = sqliteTable(
  "login_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ip: text("ip").notNull(),
    at: integer("at").notNull(), // epoch ms
    ok: integer("ok", { mode: "boolean" }).notNull().default(false),
    /** Whom it tried (migration 0020): a person's id, '?<hash>' for a sign-in name nobody has, '' from before. */
    account: text("account").notNull().default(""),
    /** The known device or session of that person it came from, or null (server/auth/sign-in-attempts.ts). */
    device: text("device"),
  },
  (t) => [
    index("login_attempts_ip_at_idx").on(t.ip, t.at),
    index("login_attempts_at_idx").on(t.at),
    index("login_attempts_account_at_idx").on(t.account, t.at),
  ],
);

/** Browsers a person signed in from (migration 0020): the SHA-256 of the memo_device cookie's secret. */
export const loginDevices = sqliteTable(
  "login_devices",
  {
    secretHash: text("secret_hash").notNull(),
    personId: text("person_id")
      .notNull()
      .references(() => people.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(), // epoch ms
    lastUsedAt: integer("last_used_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.secretHash, t.personId] }),
    index("login_devices_person_idx").on(t.personId, t.lastUsedAt),
  ],
);
