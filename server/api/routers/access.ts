import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createTRPCRouter, ownerProcedure, personalProcedure, publicProcedure } from "../trpc";
import { TRPC_CODE_BY_STATUS } from "../../core/errors";
import { tokenName } from "../../core/validators";
import { accessConfig, clientAddress, isLoopbackAddress, loginRequired, readCookie } from "../../auth/access";
import { loginRequiredHere, principalOf } from "../../auth/gate";
import { OWNER_ID } from "../../core/space-name";
import { changeOwnerPassword, changePersonPassword } from "../../auth/login";
import { getPerson } from "../../auth/people";
import { DEVICE_COOKIE } from "../../auth/sign-in-attempts";
import { MAX_PASSWORD_CHARS } from "../../auth/password";
import {
  countSessions,
  createApiToken,
  deleteAllSessions,
  hasOwnerPassword,
  listApiTokens,
  revokeApiToken,
  SESSION_COOKIE,
} from "../../auth/store";

/**
 * Settings → Access: the mode Memo runs in, the owner password, API tokens, sessions. Everything but the
 * status is for the owner (a session, or loopback): an API token may not list, mint or revoke tokens or
 * change the password.
 */
export const accessRouter = createTRPCRouter({
  status: publicProcedure.query(({ ctx }) => {
    const cfg = accessConfig();
    const p = principalOf(ctx.headers);
    return {
      loginRequired: loginRequiredHere(ctx.headers),
      host: cfg.host,
      loopback: isLoopbackAddress(cfg.host) && !loginRequiredHere(ctx.headers),
      passwordSet: hasOwnerPassword(ctx.memo.db),
      via: p?.kind ?? null,
      // The caller's own sessions (another person's are theirs to see).
      sessions: countSessions(ctx.memo.db, Date.now(), ctx.person.personId),
    };
  }),
  // Each person lists, makes and revokes their own tokens; a token acts as its person.
  tokens: personalProcedure.query(({ ctx }) => listApiTokens(ctx.memo.db, ctx.person.personId)),
  /** The token's secret is in this answer only; the store keeps its SHA-256. */
  createToken: personalProcedure.input(z.strictObject({ name: tokenName })).mutation(({ ctx, input }) => {
    return createApiToken(ctx.memo.db, input.name, ctx.person.personId);
  }),
  revokeToken: personalProcedure
    .input(z.strictObject({ id: z.string().uuid("id must be a token id") }))
    .mutation(({ ctx, input }) => {
      if (!revokeApiToken(ctx.memo.db, input.id, ctx.person.personId))
        throw new TRPCError({ code: "NOT_FOUND", message: "no live API token with this id" });
      return { revoked: input.id };
    }),
  setPassword: ownerProcedure
    .input(
      z.strictObject({
        current: z
          .string()
          .max(MAX_PASSWORD_CHARS * 4)
          .optional(),
        password: z.string().max(MAX_PASSWORD_CHARS * 4),
        /** Sign out the other sessions and revoke every API token (the form's box, on by default). */
        revokeOthers: z.boolean().default(true),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      // The owner's password is the owner's: another admin resets people's passwords, not this one.
      if (ctx.person.personId !== OWNER_ID)
        throw new TRPCError({ code: "FORBIDDEN", message: "only the owner can change the owner password" });
      const cfg = accessConfig();
      const r = await changeOwnerPassword(ctx.memo.db, {
        current: input.current,
        password: input.password,
        ip: clientAddress(ctx.headers, cfg),
        deviceCookie: readCookie(ctx.headers, DEVICE_COOKIE),
        sessionToken: readCookie(ctx.headers, SESSION_COOKIE),
        keepSession: readCookie(ctx.headers, SESSION_COOKIE),
        loginRequired: loginRequired(ctx.headers, cfg),
        revokeOthers: input.revokeOthers,
      });
      if (!r.ok) throw new TRPCError({ code: TRPC_CODE_BY_STATUS[r.status], message: r.message });
      return { sessionsRevoked: r.sessionsRevoked, tokensRevoked: r.tokensRevoked };
    }),
  /** A person (not the owner) changes their own password, e.g. the one an admin gave them. */
  changeMyPassword: personalProcedure
    .input(
      z.strictObject({
        current: z.string().max(MAX_PASSWORD_CHARS * 4),
        password: z.string().max(MAX_PASSWORD_CHARS * 4),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const r = await changePersonPassword(ctx.memo.db, {
        personId: ctx.person.personId,
        current: input.current,
        password: input.password,
        ip: clientAddress(ctx.headers, accessConfig()),
        deviceCookie: readCookie(ctx.headers, DEVICE_COOKIE),
        sessionToken: readCookie(ctx.headers, SESSION_COOKIE),
        keepSession: readCookie(ctx.headers, SESSION_COOKIE),
      });
      if (!r.ok) throw new TRPCError({ code: TRPC_CODE_BY_STATUS[r.status], message: r.message });
      return { changed: true };
    }),
  /** Who is signed in (the People section and the password form read it). */
  me: publicProcedure.query(({ ctx }) => {
    const p = getPerson(ctx.memo.db, ctx.person.personId);
    return p
      ? { id: p.id, name: p.name, login: p.login, role: p.role, mustChangePassword: p.mustChangePassword }
      : null;
  }),
  /** Sign out every browser, this one included. */
  signOutEverywhere: ownerProcedure.mutation(({ ctx }) => {
    // The caller's own browsers: an admin signs a person out by disabling them (People).
    return { sessionsRevoked: deleteAllSessions(ctx.memo.db, ctx.person.personId) };
  }),
});
