import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { appContext } from "../context";
import { asServiceError, TRPC_CODE_BY_STATUS } from "../core/errors";
import { principalOf } from "../auth/gate";

/** tRPC context: the store and embedder every procedure works with. */
export const createTRPCContext = async (opts: { headers: Headers }) => ({ memo: appContext(), headers: opts.headers });

const t = initTRPC.context<Awaited<ReturnType<typeof createTRPCContext>>>().create({
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

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(serviceErrors);

/**
 * Settings that decide where data and keys go (providers, models, access, jobs) are for the owner at a
 * browser (a session) or at the machine (loopback, no sign-in). An API token is for chat, search, memory
 * and documents: it may not read or change these, or it could point a provider (and its saved key) at
 * a host of its choosing, or mint itself more tokens.
 */
export function requireOwner(headers: Headers): void {
  const p = principalOf(headers);
  if (!p || p.kind === "token" || p.kind === "public") {
    throw new TRPCError({
      code: "FORBIDDEN",
      message:
        "only the owner signed in with the password (or at the machine) can read or change these settings; API tokens cannot",
    });
  }
}

export const ownerProcedure = publicProcedure.use(({ ctx, next }) => {
  requireOwner(ctx.headers);
  return next();
});
