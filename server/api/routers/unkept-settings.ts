import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { acting } from "../../core/acting";
import { dismissUnkept, settingDeclaration, unkeptSettings } from "../../core/settings-store";
import { createTRPCRouter, personalProcedure } from "../trpc";

/**
 * What a setting's loader could not keep after its schema changed (server/core/settings-load.ts), for
 * Settings to show beside the section it belongs to: the person's own, and the household's for an admin.
 * Only where and why — the saved text set aside stays on the server (a provider key in it is sealed there).
 */
export const unkeptSettingsRouter = createTRPCRouter({
  list: personalProcedure.query(({ ctx }) => {
    const me = acting();
    return unkeptSettings(ctx.memo.db, me.personId, me.admin).map((u) => ({
      key: u.key,
      scope: u.scope,
      entries: u.entries.map((e) => ({ at: e.at, unkept: e.unkept })),
    }));
  }),
  /** The person has seen it: forget the notice (the household's: an admin only). */
  dismiss: personalProcedure.input(z.strictObject({ key: z.string().min(1).max(300) })).mutation(({ ctx, input }) => {
    let scope: string;
    try {
      scope = settingDeclaration(input.key).scope;
    } catch {
      throw new TRPCError({ code: "BAD_REQUEST", message: `no setting '${input.key}'` });
    }
    if (scope === "household" && !acting().admin)
      throw new TRPCError({ code: "FORBIDDEN", message: "only an admin can dismiss a household setting's notice" });
    return { dismissed: dismissUnkept(ctx.memo.db, input.key) };
  }),
});
