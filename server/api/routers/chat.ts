import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import { persistQueue } from "../../chat/exchange-queue";
import { providerHealth } from "../../chat/provider-health";
import { providerStatus } from "../../chat/providers";
import { getMessage, updateCommand } from "../../chat/conversations";
import { confirmForget } from "../../chat/forget-confirm";
import { keepCutShortExchange } from "../../chat/keep-cut-short";
import { restore } from "../../memory/lifecycle/forget";
import { ServiceError } from "../../core/errors";
import { acting } from "../../core/acting";

/** The chat page's non-streaming needs; the reply itself streams from POST /api/chat. */
export const chatRouter = createTRPCRouter({
  /** Is a provider ready (and if not, how to set one up)? Are exchanges waiting to be written to memory? */
  status: publicProcedure.query(async ({ ctx }) => {
    const p = providerStatus(ctx.memo.db);
    const health = await providerHealth(ctx.memo.db);
    const active = p.providers.find((x) => x.id === p.active);
    return {
      ready: p.ready,
      problem: p.problem,
      unready: p.unready,
      active: p.active,
      label: active?.label ?? null,
      model: active?.model ?? null,
      // The caller's own exchanges; the household's for an admin (issue 43).
      persist: persistQueue().status(acting().admin ? null : ctx.person.personId),
      /** Live: ready / unreachable / not_configured, re-checked (server/chat/provider-health.ts). */
      health,
    };
  }),
  /** Confirm (or decline) a /forget that asked first: forgets exactly the memories it listed, those still live. */
  confirmForget: publicProcedure
    .input(z.strictObject({ messageId: z.string().uuid(), confirm: z.boolean() }))
    .mutation(({ ctx, input }) => confirmForget(ctx.memo, input.messageId, input.confirm)),
  /** "Remember this anyway": store as memory an exchange whose reply was stopped (or left by its page). */
  keepExchange: publicProcedure
    .input(z.strictObject({ messageId: z.string().uuid() }))
    .mutation(({ ctx, input }) => keepCutShortExchange(ctx.memo, input.messageId)),
  /** Undo a /forget typed in the chat: restore what it forgot and mark the reply as undone. */
  undoForget: publicProcedure.input(z.strictObject({ messageId: z.string().uuid() })).mutation(({ ctx, input }) => {
    const m = getMessage(ctx.memo.db, input.messageId);
    if (m?.command?.type !== "forget") throw new ServiceError(404, "no /forget reply with this id");
    const cmd = m.command;
    if (cmd.undoneAt) return { message: m, restored: [] as string[] };
    if (Date.parse(cmd.undo.until) < Date.now())
      throw new ServiceError(409, "the undo period of this /forget has passed");
    const { restored } = cmd.undo.ids.length ? restore(ctx.memo, cmd.undo.ids) : { restored: [] as string[] };
    const message = updateCommand(ctx.memo.db, m.id, { ...cmd, undoneAt: new Date().toISOString() });
    return { message, restored };
  }),
});
