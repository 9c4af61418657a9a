import { acting, dekeyValue, myKeyPrefix, runAs } from "../core/acting";
import { ServiceError } from "../core/errors";
import { mustChangePassword } from "../auth/access";
import { actingOf, gateResponse, NOBODY, principalOf } from "../auth/gate";

/**
 * A route handler that runs as the request's person (issue 32): the session's or the API token's person,
 * the owner at the machine (loopback, no people), nobody otherwise. Every REST, /v1 and MCP route exports
 * its handlers through this, so the store's chokepoints (server/core/acting.ts) see who acts; the isolation
 * suite (server/auth/isolation.test.ts) calls every route file's exports as another person.
 */
export function asPerson<T extends unknown[]>(
  handler: (req: Request, ...rest: T) => Response | Promise<Response>,
): (req: Request, ...rest: T) => Promise<Response> {
  return async (req: Request, ...rest: T) => {
    const principal = principalOf(req.headers, req.url);
    const person = actingOf(principal);
    // Nobody acts, or a person who must change their password first: answered by the access gate's own
    // refusal (proxy.ts gives it first; this is the second lock).
    if (person.personId === NOBODY.personId || (principal && mustChangePassword(principal))) {
      const denied = gateResponse(req);
      if (denied) return denied;
    }
    return runAs(person, async () => {
      const res = await handler(req, ...rest);
      const prefix = myKeyPrefix();
      return prefix ? dekeyResponse(res, prefix) : res;
    });
  };
}

const TEXTUAL = /^(application\/(json|x-ndjson)|text\/)/i;

/**
 * The answer as its person sees it: their space keys shown as names ('<id>~personal' → 'personal') in the
 * headers and in a textual body, streamed (chat's server-sent events pass through as they come). The
 * owner's keys are the names, so single-user answers are never touched.
 */
function dekeyResponse(res: Response, prefix: string): Response {
  const headers = new Headers();
  for (const [k, v] of res.headers) headers.append(k, dekeyValue(v, prefix));
  if (!res.body || !TEXTUAL.test(res.headers.get("content-type") ?? "")) {
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
  headers.delete("content-length");
  const keep = prefix.length - 1;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = "";
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        // A key split across chunks: a tail that could begin one waits for the next chunk (an event
        // ending in "\n\n" never does, so server-sent events are not held back).
        const text = dekeyValue(carry + decoder.decode(chunk, { stream: true }), prefix);
        carry = "";
        for (let k = Math.min(keep, text.length); k > 0; k--) {
          if (prefix.startsWith(text.slice(text.length - k))) {
            carry = text.slice(text.length - k);
            break;
          }
        }
        const ready = text.slice(0, text.length - carry.length);
        if (ready) out.enqueue(encoder.encode(ready));
      },
      flush(out) {
        const rest = dekeyValue(carry + decoder.decode(), prefix);
        if (rest) out.enqueue(encoder.encode(rest));
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/** The household's jobs over REST: an admin (a session or an admin's API token) or the owner at the machine. */
export function requireAdmin(): void {
  if (!acting().admin) throw new ServiceError(403, "only an admin can run jobs or read their results");
}
