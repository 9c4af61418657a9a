import { createTRPCRouter, personalProcedure, publicProcedure } from "../trpc";
import {
  getRetrievalSettings,
  resetRetrievalSettings,
  retrievalPatchInput,
  updateRetrievalSettings,
} from "../../services/retrieval-settings-service";

/** Retrieval parameters per embedding model (Settings → Retrieval). */
export const retrievalSettingsRouter = createTRPCRouter({
  get: publicProcedure.query(({ ctx }) => getRetrievalSettings(ctx.memo)),
  save: personalProcedure
    .input(retrievalPatchInput)
    .mutation(({ ctx, input }) => updateRetrievalSettings(ctx.memo, input)),
  reset: personalProcedure.mutation(({ ctx }) => resetRetrievalSettings(ctx.memo)),
});
