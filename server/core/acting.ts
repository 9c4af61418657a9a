import { AsyncLocalStorage } from "node:async_hooks";
import { OWNER_ID, SPACE_KEY_SEP, SPACE_RE, spaceKey, spaceNameOf, spacePersonOf } from "./space-name";

/**
 * The acting person of the work in progress (issue 32): set by the tRPC procedures and the REST, /v1 and MCP
 * handlers from the request's session or token (server/auth/gate.ts actingOf), read by the store's
 * chokepoints (space keys, lookups by id, scans) so that every read and write is the acting person's without
 * each route passing it on. Work started outside a request (jobs, start-up, scripts, tests) names spaces as
 * the owner and sees every space; `system` (runAsSystem) is the same for work a request starts on behalf of
 * the whole household (decay, consolidation, the ingest and persist queues).
 */
export interface Acting {
  personId: string;
  /** Household settings (providers and keys, local models, jobs, access) are for admins. */
  admin: boolean;
  /** Jobs over every person's data: lookups by id are not narrowed to one person. */
  system?: boolean;
}

// One store per process, kept on globalThis: Next bundles instrumentation and route handlers separately, so
// this module can exist more than once, and the SQL functions registered when the store is opened (mine,
// acting_person) must read the same store as the handler that set it — else they see nobody acting, which
// reads as "every space" (a read-only share written through REST was the symptom).
const g = globalThis as unknown as { __memoActing?: AsyncLocalStorage<Acting> };
if (!g.__memoActing) g.__memoActing = new AsyncLocalStorage<Acting>();
const als = g.__memoActing;
const OWNER: Acting = { personId: OWNER_ID, admin: true };

export function runAs<T>(who: Acting, fn: () => T): T {
  return als.run(who, fn);
}

export function acting(): Acting {
  return als.getStore() ?? OWNER;
}

export function actingPersonId(): string {
  return acting().personId;
}

/** The acting person's key for a space they name. */
export function mySpace(name: string): string {
  return spaceKey(actingPersonId(), name);
}

/**
 * Is this space key the acting person's? The one test every person-narrowed query uses, as the SQL function
 * `mine(space_id)` (registered on every connection by server/db). Outside a request (jobs, start-up,
 * scripts, tests) and for system work every space is visible: those act for the whole household.
 */
export function isMine(spaceKey: string): boolean {
  const a = als.getStore();
  if (!a || a.system) return true;
  return spacePersonOf(spaceKey) === a.personId;
}

/** Run work for the whole household (a job over everyone's memories), even when a request started it. */
export function runAsSystem<T>(fn: () => T): T {
  return als.run({ personId: OWNER_ID, admin: true, system: true }, fn);
}

/**
 * The acting person's key for a space named in a request, or null when it is no valid name: a name is
 * theirs (`personal` → '<id>~personal'), and their own key passes unchanged (services that check a value a
 * schema already turned into a key). Nothing a person sends can name another person's space.
 */
export function mySpaceOf(nameOrKey: string): string | null {
  if (SPACE_RE.test(nameOrKey)) return mySpace(nameOrKey);
  const id = actingPersonId();
  if (id !== OWNER_ID && spacePersonOf(nameOrKey) === id && SPACE_RE.test(spaceNameOf(nameOrKey))) return nameOrKey;
  return null;
}

/** What the acting person's space keys start with; null for the owner (whose keys are the names). */
export function myKeyPrefix(): string | null {
  const id = actingPersonId();
  return id === OWNER_ID || id === "" ? null : `${id}${SPACE_KEY_SEP}`;
}

/**
 * A value as its person sees it: every space key of theirs shown as the space's name. Answers (tRPC
 * results, REST bodies and headers, error messages) go through this, so a person sees `personal`, never
 * '<id>~personal'. Plain JSON values are copied; anything else passes unchanged.
 */
export function dekeyValue<T>(v: T, prefix: string): T {
  if (typeof v === "string") return (v.includes(prefix) ? v.split(prefix).join("") : v) as T;
  if (Array.isArray(v)) return v.map((x) => dekeyValue(x, prefix)) as T;
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[dekeyValue(k, prefix)] = dekeyValue(x, prefix);
    return out as T;
  }
  return v;
}

/** Whose spaces a statement may see: the acting person's id, or null when every space (no request, or system work). */
export function actingScope(): string | null {
  const a = als.getStore();
  return !a || a.system ? null : a.personId;
}

/**
 * mine(col) for scans over many rows: the same test, written so that SQLite asks who acts once per statement
 * (an uncorrelated subquery over `acting_person()`) instead of calling into JavaScript for every row —
 * mine() per row made a 500K-memory count 6–7× slower.
 */
export const mineScan = (col: string): string =>
  `${col} IN (SELECT id FROM spaces WHERE (SELECT acting_person()) IS NULL OR person_id = (SELECT acting_person()))`;

/**
 * Shared spaces (drizzle/0014_space_shares.sql): the spaces whose memories the acting person may read — their
 * own and those shared with them, read-only or read-write. Lookups of memories by id and retrieval's reads use
 * this in place of mine(); lists over "all my spaces" keep mine(), so a shared space is only ever read when it
 * is named (a conversation's added space, a search's space, the Manager's space filter).
 */
export const visibleScan = (col: string): string =>
  `${col} IN (SELECT id FROM spaces WHERE (SELECT acting_person()) IS NULL OR person_id = (SELECT acting_person())
     UNION ALL SELECT space_id FROM space_shares WHERE person_id = (SELECT acting_person()))`;

/** The spaces whose memories the acting person may write, edit, forget or delete: their own and read-write shares. */
export const writableScan = (col: string): string =>
  `${col} IN (SELECT id FROM spaces WHERE (SELECT acting_person()) IS NULL OR person_id = (SELECT acting_person())
     UNION ALL SELECT space_id FROM space_shares WHERE person_id = (SELECT acting_person()) AND mode = 'write')`;

/**
 * The trash is its owner's alone (issue 43): a soft-deleted memory is seen, restored, purged or changed only by
 * its space's person (or work for the household). To anyone it is shared with, read-only or read-write, it reads
 * exactly like a missing memory. Memory lookups by id and the Manager's listing use these in place of
 * visibleScan/writableScan; `deleted` is the row's soft_deleted column.
 */
export const visibleMemoryScan = (space: string, deleted: string): string =>
  `(${visibleScan(space)} AND (${deleted} = 0 OR ${mineScan(space)}))`;

/** The memories the acting person may change by id: writableScan, and a trashed one only when it is theirs. */
export const writableMemoryScan = (space: string, deleted: string): string =>
  `(${writableScan(space)} AND (${deleted} = 0 OR ${mineScan(space)}))`;

/**
 * A space named in a request that may be another person's: the acting person's own name or key
 * (mySpaceOf), or `<person id>~<name>` for a space of that person (`owner~recipes` for the owner's). Only the
 * form is checked here; whether the space is shared with the acting person is the store's question
 * (visibleScan/writableScan, server/memory/store/shares.ts), and a space not shared reads as missing.
 */
export function sharedSpaceOf(nameOrRef: string): string | null {
  const own = mySpaceOf(nameOrRef);
  if (own !== null) return own;
  const i = nameOrRef.indexOf(SPACE_KEY_SEP);
  if (i <= 0) return null;
  const person = nameOrRef.slice(0, i);
  const name = nameOrRef.slice(i + 1);
  return SPACE_RE.test(person) && SPACE_RE.test(name) ? spaceKey(person, name) : null;
}

/** How a person names a space of someone else's in requests: '<person id>~<name>', the owner's too. */
export function spaceRef(key: string): string {
  return `${spacePersonOf(key)}${SPACE_KEY_SEP}${spaceNameOf(key)}`;
}
