import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { stmt } from "../core/statements";
import { OWNER_ID } from "../core/space-name";

export { OWNER_ID };

/**
 * The people of a household server (issue 32; the `people` table, drizzle/0012_people.sql). The owner is the
 * person 'owner' (role admin) whose password stays in auth_owner; everyone else has a scrypt hash here (the
 * same scheme, server/auth/password.ts). Everything personal hangs off a person's spaces: a space's key is
 * its name for the owner and '<person id>~<name>' for anyone else (see spaceKey), so every table that names
 * a space keeps its foreign key and two people can each have `personal`.
 */

export type Role = "admin" | "member";

export interface Person {
  id: string;
  name: string;
  login: string;
  role: Role;
  disabled: boolean;
  mustChangePassword: boolean;
  createdAt: string;
}

const COLUMNS = "id, name, login, role, disabled, must_change_password AS mustChangePassword, created_at AS createdAt";

function toPerson(r: Record<string, unknown>): Person {
  return {
    ...(r as unknown as Person),
    disabled: Boolean(r.disabled),
    mustChangePassword: Boolean(r.mustChangePassword),
  };
}

export function getPerson(db: Database.Database, id: string): Person | null {
  const r = stmt(db, `SELECT ${COLUMNS} FROM people WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  return r ? toPerson(r) : null;
}

export function personByLogin(db: Database.Database, login: string): Person | null {
  const r = stmt(db, `SELECT ${COLUMNS} FROM people WHERE lower(login) = lower(?)`).get(login) as
    | Record<string, unknown>
    | undefined;
  return r ? toPerson(r) : null;
}

export function listPeople(db: Database.Database): Person[] {
  return (
    stmt(db, `SELECT ${COLUMNS} FROM people ORDER BY id != 'owner', created_at, id`).all() as Record<string, unknown>[]
  ).map(toPerson);
}

/** People besides the owner: with none, Memo is the single-user app it always was. */
export function otherPeopleCount(db: Database.Database): number {
  return (stmt(db, "SELECT count(*) AS n FROM people WHERE id != 'owner'").get() as { n: number }).n;
}

/** A non-owner person's stored hash (the owner's is auth_owner's). */
export function personPasswordHash(db: Database.Database, id: string): string | null {
  const r = stmt(db, "SELECT password_hash AS h FROM people WHERE id = ?").get(id) as { h: string | null } | undefined;
  return r?.h ?? null;
}

export const LOGIN_RE = /^[A-Za-z0-9._-]{1,64}$/;

export function createPerson(
  db: Database.Database,
  input: { name: string; login: string; passwordHash: string; role: Role; mustChangePassword?: boolean },
): Person {
  const id = `p${crypto.randomBytes(8).toString("hex")}`;
  stmt(
    db,
    "INSERT INTO people (id, name, login, password_hash, role, must_change_password) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(id, input.name, input.login, input.passwordHash, input.role, input.mustChangePassword ? 1 : 0);
  return getPerson(db, id)!;
}

/**
 * Disable (or enable) a person. Disabling signs out every session and revokes every token of theirs in the
 * same transaction, so their next request is refused; the gate also refuses a disabled person's principal.
 */
export function setPersonDisabled(db: Database.Database, id: string, disabled: boolean): boolean {
  return db.transaction(() => {
    const changed = stmt(db, "UPDATE people SET disabled = ? WHERE id = ? AND id != 'owner'").run(
      disabled ? 1 : 0,
      id,
    ).changes;
    if (changed && disabled) revokeAllOf(db, id);
    return changed > 0;
  })();
}

/** A new password for a non-owner person (an admin's reset or their own change); their other sessions and tokens end. */
export function setPersonPasswordHash(
  db: Database.Database,
  id: string,
  hash: string,
  mustChangePassword: boolean,
  /** The session that made the change (its own password change) stays signed in. */
  keepSessionHash?: string,
): boolean {
  return db.transaction(() => {
    const changed = stmt(
      db,
      "UPDATE people SET password_hash = ?, must_change_password = ? WHERE id = ? AND id != 'owner'",
    ).run(hash, mustChangePassword ? 1 : 0, id).changes;
    if (changed) revokeAllOf(db, id, keepSessionHash);
    return changed > 0;
  })();
}

function revokeAllOf(db: Database.Database, personId: string, keepSessionHash = ""): void {
  stmt(db, "DELETE FROM auth_sessions WHERE person_id = ? AND id_hash != ?").run(personId, keepSessionHash);
  stmt(
    db,
    "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE person_id = ? AND revoked_at IS NULL",
  ).run(personId);
}

/** Re-hash in place (stronger parameters after a sign-in), without signing anyone out. */
export function setPersonPasswordHashQuietly(db: Database.Database, id: string, hash: string): void {
  stmt(db, "UPDATE people SET password_hash = ? WHERE id = ? AND id != 'owner'").run(hash, id);
}
