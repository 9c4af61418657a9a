/** Space names, shared by the server's schemas and the pages' forms (no dependencies: the browser bundle imports it). */

/** The space every memory and conversation is in unless another is named. */
export const DEFAULT_SPACE = "personal";
/** A space name: 1–64 letters, digits, `_` or `-`. */
export const SPACE_RE = /^[A-Za-z0-9_-]{1,64}$/;
