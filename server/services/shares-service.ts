/**
 * Shared spaces (issue 32, item 4) as Settings → Spaces and the API manage them: the space's person shares
 * it with chosen people (by sign-in name or id), read-only or read-write, changes the mode, or stops sharing;
 * everyone lists what they share and what is shared with them. A conversation adds a space shared with its
 * person to its recall (the only path by which a shared space reaches a turn). The access checks themselves
 * are the store's (server/memory/store/shares.ts).
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { actingPersonId, isMine, mySpaceOf, spaceRef } from "../core/acting";
import { ServiceError } from "../core/errors";
import { sharedSpaceName, spaceName } from "../core/validators";
import {
  conversationSpaces,
  personByRef,
  removeShare,
  setConversationSpaces,
  setShare,
  sharedWith,
  sharesOf,
  spaceExists,
  type SharedWithMe,
  type ShareMode,
} from "../memory/store";
import { getConversationOr404 } from "../chat/conversations";
import { markSharesSeen, markShareUnseen } from "./share-notices";

const person = z
  .string()
  .trim()
  .min(1, "name the person: their sign-in name or id")
  .max(200, "a sign-in name has at most 200 characters");
export const shareInput = z.strictObject({
  space: spaceName,
  person,
  mode: z.enum(["read", "write"]).default("read"),
});
export const unshareInput = z.strictObject({ space: spaceName, person });
export const conversationSpacesInput = z.strictObject({
  id: z.string().uuid("id must be a conversation id"),
  /** Spaces shared with the person ('<owner id>~<name>'); empty: none added. */
  spaces: z.array(sharedSpaceName).max(20, "at most 20 added spaces"),
});

export interface MyShares {
  /** The spaces the acting person shares, each with whom and how. */
  mine: { space: string; people: { personId: string; name: string; login: string; mode: ShareMode }[] }[];
  /** The spaces others share with the acting person. */
  withMe: SharedWithMe[];
}

export function listShares(db: Database.Database): MyShares {
  const me = actingPersonId();
  const bySpace = new Map<string, MyShares["mine"][number]>();
  for (const s of sharesOf(db, me)) {
    if (!bySpace.has(s.spaceId)) bySpace.set(s.spaceId, { space: s.spaceId, people: [] });
    bySpace.get(s.spaceId)!.people.push({ personId: s.personId, name: s.name, login: s.login, mode: s.mode });
  }
  return { mine: [...bySpace.values()], withMe: sharedWith(db, me) };
}

/**
 * Every refusal to share says the same (issue 43, finding 6): a sign-in name nobody has, a disabled
 * person and the sharer's own name or id get one status and one message, so sharing cannot tell a member
 * who else has an account here. Unsharing looks only among the space's own shares, with its one message.
 */
const NO_ONE_TO_SHARE_WITH = "there is no one to share with by this sign-in name or id";
const NOT_SHARED_WITH = "this space is not shared with anyone by this sign-in name or id";

/** The other, active person a share names, by id or sign-in name (case-insensitive). */
function shareeOf(db: Database.Database, ref: string): { id: string; name: string } {
  const p = personByRef(db, ref);
  if (!p || p.disabled || p.id === actingPersonId()) throw new ServiceError(404, NO_ONE_TO_SHARE_WITH);
  return p;
}

/** The acting person's own space named in a share: only its person manages who it is shared with. */
function ownSpace(db: Database.Database, key: string): string {
  const own = mySpaceOf(key);
  if (own === null || !spaceExists(db, own)) throw new ServiceError(404, `space '${key}' does not exist`);
  return own;
}

/** Share one of the acting person's spaces with a person, or change how (read ↔ write). */
export function shareSpace(
  db: Database.Database,
  input: z.infer<typeof shareInput>,
): { space: string; personId: string; name: string; mode: ShareMode } {
  const space = ownSpace(db, input.space);
  const p = shareeOf(db, input.person);
  const before = sharesOf(db, actingPersonId()).find((s) => s.spaceId === space && s.personId === p.id);
  setShare(db, space, p.id, input.mode);
  // A new share, or read ↔ write: the person is told (again) on their chat page (share-notices.ts).
  if (before?.mode !== input.mode) markShareUnseen(db, space, p.id);
  return { space, personId: p.id, name: p.name, mode: input.mode };
}

/** Stop sharing a space with a person: nothing of it reaches them afterwards, not even through a conversation that added it. */
export function unshareSpace(
  db: Database.Database,
  input: z.infer<typeof unshareInput>,
): { space: string; personId: string; removed: boolean } {
  const space = ownSpace(db, input.space);
  const ref = input.person.toLowerCase();
  const p = sharesOf(db, actingPersonId()).find(
    (s) => s.spaceId === space && (s.personId === input.person || s.login.toLowerCase() === ref),
  );
  if (!p) throw new ServiceError(404, NOT_SHARED_WITH);
  return { space, personId: p.personId, removed: removeShare(db, space, p.personId) };
}

/** Set the spaces shared with the person that a conversation of theirs also recalls from. */
export function setSpacesOfConversation(
  db: Database.Database,
  input: z.infer<typeof conversationSpacesInput>,
): { id: string; spaces: string[] } {
  const conv = getConversationOr404(db, input.id);
  // Only other people's spaces are added: the conversation's own space is always searched, and a person's
  // other spaces are chosen as the conversation's space, not mixed in.
  const added = [...new Set(input.spaces)].filter((s) => s !== conv.spaceId);
  for (const s of added)
    if (isMine(s)) throw new ServiceError(400, "only spaces shared with you can be added to a conversation");
  setConversationSpaces(db, conv.id, added);
  markSharesSeen(db, added); // adding a space to a chat is seeing that it was shared
  return addedSpaces(db, conv.id);
}

/** The spaces added to a conversation (still shared with its person), as the person names them. */
export function addedSpaces(db: Database.Database, id: string): { id: string; spaces: string[] } {
  const conv = getConversationOr404(db, id);
  return { id: conv.id, spaces: conversationSpaces(db, conv.id).map(spaceRef) };
}
