import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { stmt } from "../core/statements";
import { OWNER_ID } from "../core/space-name";

/**
 * The auth tables (server/db/schema-auth.ts: auth_owner, auth_sessions, api_tokens; sign-in attempts and known
 * devices are server/auth/sign-in-attempts.ts's). Secrets are never stored: sessions and API tokens are 256-bit random values of which only the SHA-256 is kept
 * (a fast hash is right for random secrets; the memory-hard KDF is for the owner's password, which is
 * not random). Everything takes the store's connection, so the app, the proxy and scripts share it.
 */

export const SESSION_COOKIE = "memo_session";
export const TOKEN_PREFIX = "memo_";
const SESSION_DAYS_DEFAULT = 30;
/** Last-seen (and the sliding expiry) is written at most this often per session / token. */
const TOUCH_EVERY_MS = 60_000;

export function sha256(s: string): string {
  return crypto.createHash("sha256").update(s, "utf8").digest("hex");
}

function secret(): string {
  return crypto.randomBytes(32).toString("base64url");
}

export function sessionDays(): number {
  const d = Number(process.env.MEMO_SESSION_DAYS ?? SESSION_DAYS_DEFAULT);
  return Number.isFinite(d) && d > 0 ? d : SESSION_DAYS_DEFAULT;
}

// ---- owner password -------------------------------------------------------------------------------

export function ownerPasswordHash(db: Database.Database): string | null {
  const row = stmt(db, "SELECT password_hash AS h FROM auth_owner WHERE id = 1").get() as { h: string } | undefined;
  return row?.h ?? null;
}

export function hasOwnerPassword(db: Database.Database): boolean {
  return ownerPasswordHash(db) !== null;
}

/**
 * Store a new password hash. With `revokeOthers` (the default) every other session is signed out (all but
 * `keepSession`, the one that changed it) and every live API token revoked: whoever learnt the old
 * password, or a token made with it, is out.
 */
export function setOwnerPasswordHash(
  db: Database.Database,
  hash: string,
  keepSession?: string,
  revokeOthers = true,
): { sessionsRevoked: number; tokensRevoked: number } {
  return db.transaction(() => {
    stmt(
      db,
      "INSERT INTO auth_owner (id, password_hash, updated_at) VALUES (1, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now')) " +
        "ON CONFLICT(id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at",
    ).run(hash);
    if (!revokeOthers) return { sessionsRevoked: 0, tokensRevoked: 0 };
    const keep = keepSession ? sha256(keepSession) : "";
    return {
      // The owner's own sessions and tokens: the other people's password did not change.
      sessionsRevoked: stmt(db, "DELETE FROM auth_sessions WHERE id_hash != ? AND person_id = 'owner'").run(keep)
        .changes,
      tokensRevoked: stmt(
        db,
        "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE revoked_at IS NULL AND person_id = 'owner'",
      ).run().changes,
    };
  })();
}

/** Re-hash in place (stronger parameters), without signing anyone out. */
export function replaceOwnerPasswordHash(db: Database.Database, hash: string): void {
  stmt(db, "UPDATE auth_owner SET password_hash = ? WHERE id = 1").run(hash);
}

export function removeOwnerPassword(db: Database.Database): { sessionsRevoked: number } {
  return db.transaction(() => {
    stmt(db, "DELETE FROM auth_owner").run();
    return { sessionsRevoked: stmt(db, "DELETE FROM auth_sessions").run().changes };
  })();
}

// ---- sessions -------------------------------------------------------------------------------------

export interface SessionInfo {
  idHash: string;
  /** The person signed in (the owner for sessions made before people existed). */
  personId: string;
  /** Whether that person is an admin (household settings). */
  admin: boolean;
  /** The person still has a password an admin set and must choose their own before anything else. */
  mustChangePassword?: boolean;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
}

export function createSession(
  db: Database.Database,
  meta: { ip?: string | null; userAgent?: string | null; personId?: string },
  now = Date.now(),
): { token: string; expiresAt: string } {
  const token = secret();
  const expiresAt = new Date(now + sessionDays() * 86_400_000).toISOString();
  const at = new Date(now).toISOString();
  stmt(
    db,
    "INSERT INTO auth_sessions (id_hash, created_at, last_seen_at, expires_at, ip, user_agent, person_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(
    sha256(token),
    at,
    at,
    expiresAt,
    meta.ip?.slice(0, 64) ?? null,
    meta.userAgent?.slice(0, 300) ?? null,
    meta.personId ?? OWNER_ID,
  );
  // Expired sessions go now and then.
  stmt(db, "DELETE FROM auth_sessions WHERE expires_at < ?").run(at);
  return { token, expiresAt };
}

/**
 * The live session a cookie value names, or null; a used session's expiry slides forward (written at most
 * once a minute). A session of a disabled (or removed) person is no session: they are out at their next request.
 */
export function sessionFromToken(
  db: Database.Database,
  token: string | undefined | null,
  now = Date.now(),
): SessionInfo | null {
  if (!token || token.length > 200) return null;
  const row = stmt(
    db,
    `SELECT s.id_hash AS idHash, s.person_id AS personId, p.role = 'admin' AS admin,
       p.must_change_password AS mustChangePassword, s.created_at AS createdAt,
       s.last_seen_at AS lastSeenAt, s.expires_at AS expiresAt, s.ip, s.user_agent AS userAgent
     FROM auth_sessions s JOIN people p ON p.id = s.person_id WHERE s.id_hash = ? AND p.disabled = 0`,
  ).get(sha256(token)) as SessionInfo | undefined;
  if (!row) return null;
  row.admin = Boolean(row.admin);
  row.mustChangePassword = Boolean(row.mustChangePassword);
  const nowIso = new Date(now).toISOString();
  if (row.expiresAt <= nowIso) {
    stmt(db, "DELETE FROM auth_sessions WHERE id_hash = ?").run(row.idHash);
    return null;
  }
  if (now - Date.parse(row.lastSeenAt) > TOUCH_EVERY_MS) {
    const expiresAt = new Date(now + sessionDays() * 86_400_000).toISOString();
    stmt(db, "UPDATE auth_sessions SET last_seen_at = ?, expires_at = ? WHERE id_hash = ?").run(
      nowIso,
      expiresAt,
      row.idHash,
    );
    return { ...row, lastSeenAt: nowIso, expiresAt };
  }
  return row;
}

export function deleteSession(db: Database.Database, token: string | undefined | null): boolean {
  if (!token) return false;
  return stmt(db, "DELETE FROM auth_sessions WHERE id_hash = ?").run(sha256(token)).changes > 0;
}

/** Sign out every session of one person (the owner by default: single-user Memo has no other). */
export function deleteAllSessions(db: Database.Database, personId: string = OWNER_ID): number {
  return stmt(db, "DELETE FROM auth_sessions WHERE person_id = ?").run(personId).changes;
}

export function countSessions(db: Database.Database, now = Date.now(), personId: string = OWNER_ID): number {
  return (
    stmt(db, "SELECT count(*) AS n FROM auth_sessions WHERE expires_at > ? AND person_id = ?").get(
      new Date(now).toISOString(),
      personId,
    ) as {
      n: number;
    }
  ).n;
}

// ---- API tokens -----------------------------------------------------------------------------------

export interface ApiTokenInfo {
  id: string;
  /** The person the token acts as. */
  personId: string;
  admin: boolean;
  /** Its person must change their password first: the token is refused until they do. */
  mustChangePassword?: boolean;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const TOKEN_COLUMNS =
  "t.id, t.person_id AS personId, (SELECT role = 'admin' FROM people WHERE id = t.person_id) AS admin, (SELECT must_change_password FROM people WHERE id = t.person_id) AS mustChangePassword, t.name, t.prefix, t.created_at AS createdAt, t.last_used_at AS lastUsedAt, t.revoked_at AS revokedAt";
const toToken = (r: ApiTokenInfo): ApiTokenInfo => ({
  ...r,
  admin: Boolean(r.admin),
  mustChangePassword: Boolean(r.mustChangePassword),
});

/** A new token acting as `personId`; its secret is returned here once and never again (only its hash is kept). */
export function createApiToken(
  db: Database.Database,
  name: string,
  personId: string = OWNER_ID,
): ApiTokenInfo & { token: string } {
  const token = TOKEN_PREFIX + secret();
  const id = crypto.randomUUID();
  const prefix = token.slice(0, TOKEN_PREFIX.length + 6);
  stmt(db, "INSERT INTO api_tokens (id, name, token_hash, prefix, person_id) VALUES (?, ?, ?, ?, ?)").run(
    id,
    name,
    sha256(token),
    prefix,
    personId,
  );
  const row = stmt(db, `SELECT ${TOKEN_COLUMNS} FROM api_tokens t WHERE t.id = ?`).get(id) as ApiTokenInfo;
  return { ...toToken(row), token };
}

/** A person's tokens (each person sees and revokes only their own). */
export function listApiTokens(db: Database.Database, personId: string = OWNER_ID): ApiTokenInfo[] {
  return (
    stmt(
      db,
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens t WHERE t.person_id = ? ORDER BY t.revoked_at IS NOT NULL, t.created_at DESC`,
    ).all(personId) as ApiTokenInfo[]
  ).map(toToken);
}

/** Revoke one of a person's tokens (kept in the list as revoked); false when they have no live token with this id. */
export function revokeApiToken(db: Database.Database, id: string, personId: string = OWNER_ID): boolean {
  return (
    stmt(
      db,
      "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ? AND person_id = ? AND revoked_at IS NULL",
    ).run(id, personId).changes > 0
  );
}

/** The live token a bearer value names, or null (also when its person is disabled or removed). */
export function tokenFromBearer(
  db: Database.Database,
  bearer: string | undefined | null,
  now = Date.now(),
): ApiTokenInfo | null {
  if (!bearer?.startsWith(TOKEN_PREFIX) || bearer.length > 200) return null;
  const found = stmt(
    db,
    `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN people p ON p.id = t.person_id WHERE t.token_hash = ? AND p.disabled = 0`,
  ).get(sha256(bearer)) as ApiTokenInfo | undefined;
  if (!found || found.revokedAt) return null;
  const row = toToken(found);
  if (!row.lastUsedAt || now - Date.parse(row.lastUsedAt) > TOUCH_EVERY_MS) {
    const at = new Date(now).toISOString();
    stmt(db, "UPDATE api_tokens SET last_used_at = ? WHERE id = ?").run(at, row.id);
    return { ...row, lastUsedAt: at };
  }
  return row;
}
