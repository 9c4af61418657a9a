/** Space names and ids, shared by the server's schemas, the routes and the pages' forms (no dependencies: the browser bundle imports it). */

/** The space every memory and conversation is in unless another is named. */
export const DEFAULT_SPACE = "personal";
/** A space name: 1–64 letters, digits, `_` or `-`. */
export const SPACE_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** A memory, document or conversation id (a UUID), as the REST routes check it before looking it up. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The person every store made before people existed belongs to (drizzle/0012_people.sql). */
export const OWNER_ID = "owner";
/** Never part of a space name (SPACE_RE), so no name can spell another person's key. */
export const SPACE_KEY_SEP = "~";

/**
 * The store key of a person's space named `name`: the name itself for the owner (every store made before
 * people existed keeps its keys), '<person id>~<name>' for anyone else, so two people can each have `personal`.
 */
export function spaceKey(personId: string, name: string): string {
  return personId === OWNER_ID ? name : `${personId}${SPACE_KEY_SEP}${name}`;
}

/** The name a space key shows as to its person. */
export function spaceNameOf(key: string): string {
  const i = key.indexOf(SPACE_KEY_SEP);
  return i < 0 ? key : key.slice(i + 1);
}

/** Whose space a key is, by its form (the spaces row says the same). */
export function spacePersonOf(key: string): string {
  const i = key.indexOf(SPACE_KEY_SEP);
  return i < 0 ? OWNER_ID : key.slice(0, i);
}
