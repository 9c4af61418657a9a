import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createTRPCRouter, ownerProcedure, publicProcedure } from "../trpc";
import { getLocalDetector, saveDetectSettings } from "../../chat/detect-local";
import { resolveListedChatGguf } from "../../chat/local-models";
import { saveProviderSettings } from "../../chat/providers";
import { retryModelDownload } from "../../services/model-download-service";
import { setChecklistDismissed, setupStatus } from "../../services/setup-service";

const port = z.number().int().min(1).max(65535);

/** The model banner, the first-run checklist and Settings → Models. */
export const setupRouter = createTRPCRouter({
  status: publicProcedure.query(({ ctx }) => setupStatus(ctx.memo)),
  setChecklistDismissed: publicProcedure
    .input(z.strictObject({ dismissed: z.boolean() }))
    .mutation(({ ctx, input }) => {
      setChecklistDismissed(ctx.memo.db, input.dismissed);
      return setupStatus(ctx.memo);
    }),
  /** "Try again": a new attempt at the background download (resumes the kept .part). */
  retryDownload: ownerProcedure.mutation(({ ctx }) => {
    retryModelDownload();
    return setupStatus(ctx.memo);
  }),
  setDetection: ownerProcedure.input(z.strictObject({ enabled: z.boolean() })).mutation(async ({ ctx, input }) => {
    saveDetectSettings(ctx.memo.db, { enabled: input.enabled });
    await getLocalDetector().recheck(ctx.memo.db);
    return setupStatus(ctx.memo);
  }),
  recheckDetection: ownerProcedure.mutation(async ({ ctx }) => {
    await getLocalDetector().recheck(ctx.memo.db);
    return setupStatus(ctx.memo);
  }),
  /** Switch between detected servers (when several answer). */
  preferDetected: ownerProcedure.input(z.strictObject({ port })).mutation(({ ctx, input }) => {
    saveDetectSettings(ctx.memo.db, { preferredPort: input.port });
    return setupStatus(ctx.memo);
  }),
  /** Keep a detected server as the configured OpenAI-compatible provider (then it no longer depends on detection). */
  useDetected: ownerProcedure.input(z.strictObject({ port })).mutation(({ ctx, input }) => {
    const d = getLocalDetector()
      .status(ctx.memo.db)
      .found.find((f) => f.port === input.port);
    if (!d)
      throw new TRPCError({
        code: "NOT_FOUND",
        message: `No local chat server was found on port ${input.port}; press Re-check first.`,
      });
    saveProviderSettings(ctx.memo.db, { active: "openai", openai: { baseUrl: d.baseUrl, model: d.model } });
    return setupStatus(ctx.memo);
  }),
  /** Chat through one of the GGUFs in data/models/ on the local llama.cpp server. */
  useLocalModel: ownerProcedure
    .input(z.strictObject({ path: z.string().min(1).max(4096) }))
    .mutation(({ ctx, input }) => {
      const g = resolveListedChatGguf(input.path);
      if (!g)
        throw new TRPCError({
          code: "NOT_FOUND",
          message: `${input.path} is not one of the chat GGUFs in the models folder.`,
        });
      saveProviderSettings(ctx.memo.db, { active: "llama", llama: { modelPath: g.path } });
      return setupStatus(ctx.memo);
    }),
});
