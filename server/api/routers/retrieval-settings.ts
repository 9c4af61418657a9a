import { createTRPCRouter, publicProcedure } from "../trpc";
import {
  getRetrievalSettings,
  resetRetrievalSettings,
  retrievalPatchInput,
  updateRetrievalSettings,
} from "../../services/retrieval-settings-service";

/** Retrieval parameters per embedding model (Settings → Retrieval). */
export const retrievalSettingsRouter = createTRPCRouter({
  get: publicProcedure.query(({ ctx }) => getRetrievalSettings(ctx.memo)),
  save: publicProcedure
    .input(retrievalPatchInput)
    .mutation(({ ctx, input }) => updateRetrievalSettings(ctx.memo, input)),
  reset: publicProcedure.mutation(({ ctx }) => resetRetrievalSettings(ctx.memo)),
});
