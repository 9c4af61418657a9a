import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { appContext } from "../context";
import { dekeyValue, myKeyPrefix, runAs, type Acting } from "../core/acting";
import type { MemoContext } from "../core/context";
import {
  mustChangePassword,
  PASSWORD_CHANGE_MESSAGE,
  PASSWORD_CHANGE_PROCEDURES,
  type Principal,
} from "../auth/access";
import { asServiceError, TRPC_CODE_BY_STATUS } from "../core/errors";
import { actingOf, NOBODY, principalOf } from "../auth/gate";

/**
 * tRPC context: the store and embedder every procedure works with, who is calling (`principal`) and the
 * person that acts (`person`: the session's or token's, the owner at the machine, nobody otherwise).
 */
export const createTRPCContext = async (opts: { headers: Headers }) => {
  const principal = principalOf(opts.headers);
  return { memo: appContext(), headers: opts.headers, principal, person: actingOf(principal) };
};

/** What a caller must give (createCaller in tests gives the store and headers; who is calling is found from the headers). */
type BaseContext = { memo: MemoContext; headers: Headers; principal?: Principal | null; person?: Acting };

const t = initTRPC.context<BaseContext>().create({
  errorFormatter({ shape, error }) {
    const zod = error.cause instanceof ZodError ? error.cause : null;
    return {
      ...shape,
      message: zod ? zod.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ") : shape.message,
      data: { ...shape.data, zodError: zod ? zod.flatten() : null },
    };
  },
});

/** Service errors become tRPC errors with the matching code and the same readable message. */
const serviceErrors = t.middleware(async ({ next }) => {
  const res = await next();
  if (!res.ok) {
    const se = asServiceError(res.error.cause);
    if (se) throw new TRPCError({ code: TRPC_CODE_BY_STATUS[se.status], message: se.message, cause: se });
  }
  return res;
});

/** Every procedure (its input parsing included) runs as the context's person: the store's chokepoints read it. */
const actAsPerson = t.middleware(({ ctx, next, path }) => {
  const principal = ctx.principal !== undefined ? ctx.principal : principalOf(ctx.headers);
  const person = ctx.person ?? actingOf(principal);
  // No session, token or loopback owner: nobody acts, and nobody may read or write (proxy.ts refuses such
  // requests before they get here; this is the second lock).
  if (person.personId === NOBODY.personId)
    throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first (open /login, or send an API token)" });
  // A password an admin set is changed before anything else (the gate refuses first; this is the second lock).
  if (principal && mustChangePassword(principal) && !PASSWORD_CHANGE_PROCEDURES.has(path))
    throw new TRPCError({ code: "FORBIDDEN", message: PASSWORD_CHANGE_MESSAGE });
  return runAs(person, async () => {
    const res = await next({ ctx: { principal, person } });
    // The person sees their spaces by name, never by key (server/core/acting.ts dekeyValue).
    const prefix = myKeyPrefix();
    if (!prefix) return res;
    if (res.ok) return { ...res, data: dekeyValue(res.data, prefix) };
    res.error.message = dekeyValue(res.error.message, prefix);
    return res;
  });
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(actAsPerson).use(serviceErrors);

/**
 * Settings that decide where data and keys go (providers, models, access, jobs) are the household's, for an
 * admin at a browser (a session) or the owner at the machine (loopback, no sign-in). An API token is for
 * chat, search, memory and documents: it may not read or change these, or it could point a provider (and its
 * saved key) at a host of its choosing, or mint itself more tokens. A member's session is refused too.
 */
export function requireOwner(headers: Headers): void {
  const p = principalOf(headers);
  if (!p || p.kind === "token" || p.kind === "public" || !actingOf(p).admin) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message:
        "only an admin signed in with a password (or the owner at the machine) can read or change these settings; API tokens cannot",
    });
  }
}

export const ownerProcedure = publicProcedure.use(({ ctx, next }) => {
  requireOwner(ctx.headers);
  return next();
});

/**
 * The household's jobs (run now, consolidation previews, undo, history): they go over everyone's memories and
 * their results quote them, so they are an admin's (a session or an admin's API token), never a member's.
 */
export const adminProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.person.admin)
    throw new TRPCError({ code: "FORBIDDEN", message: "only an admin can run jobs or read their results" });
  return next();
});

/**
 * A person's own choices about who can read or write what and where their memory goes (API tokens, password,
 * shares, memory sharing, learning, retrieval and lifetime settings): their session or the owner at the
 * machine; never an API token (issue 58: a token that could share a space gave access away, and the share
 * outlived the token). server/auth/token-scope.test.ts walks every procedure and route to keep it so.
 */
export const personalProcedure = publicProcedure.use(({ ctx, next }) => {
  const p = ctx.principal;
  if (!p || p.kind === "token" || p.kind === "public")
    throw new TRPCError({
      code: "FORBIDDEN",
      message:
        "sign in with your password to change who can read your memory or where it goes (tokens, shares, privacy, learning, settings); API tokens cannot",
    });
  return next();
});
