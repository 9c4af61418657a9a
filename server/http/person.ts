import { runAs } from "../core/acting";
import { actingOfRequest } from "../auth/gate";

/**
 * A route handler that runs as the request's person (issue 32): the session's or the API token's person,
 * the owner at the machine (loopback, no people), nobody otherwise. Every REST, /v1 and MCP route exports
 * its handlers through this, so the store's chokepoints (server/core/acting.ts) see who acts; the isolation
 * suite (server/auth/isolation.test.ts) calls every route file's exports as another person.
 */
export function asPerson<T extends unknown[]>(
  handler: (req: Request, ...rest: T) => Response | Promise<Response>,
): (req: Request, ...rest: T) => Promise<Response> {
  return async (req: Request, ...rest: T) => runAs(actingOfRequest(req), () => handler(req, ...rest));
}
