import { AsyncLocalStorage } from "node:async_hooks";
import { OWNER_ID, spaceKey } from "./space-name";

/**
 * The acting person of the work in progress (issue 32): set by the tRPC procedures and the REST, /v1 and MCP
 * handlers from the request's session or token (server/auth/person-of.ts), read by the store's chokepoints
 * (space keys, lookups by id) so that every read and write is the acting person's without each route
 * passing it on. Work started outside a request (jobs, start-up, scripts, tests) acts as the owner unless
 * it says otherwise; `system` is for jobs that go over everyone's memories (decay) by each one's settings.
 */
export interface Acting {
  personId: string;
  /** Household settings (providers and keys, local models, jobs, access) are for admins. */
  admin: boolean;
  /** Jobs over every person's data: lookups by id are not narrowed to one person. */
  system?: boolean;
}

const als = new AsyncLocalStorage<Acting>();
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
