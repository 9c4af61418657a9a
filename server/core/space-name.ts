/** Space names and ids, shared by the server's schemas, the routes and the pages' forms (no dependencies: the browser bundle imports it). */

/** The space every memory and conversation is in unless another is named. */
export const DEFAULT_SPACE = "personal";
/** A space name: 1–64 letters, digits, `_` or `-`. */
export const SPACE_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** A memory, document or conversation id (a UUID), as the REST routes check it before looking it up. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
