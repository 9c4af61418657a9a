import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import { spaceName } from "../../core/validators";
import * as documents from "../../services/document-service";

const idInput = z.strictObject({ id: z.string().uuid("id must be a document id") });

/**
 * The Ingest page's procedures (uploads themselves go to POST /api/v1/documents: multipart does not fit
 * tRPC's JSON links). The page polls `list` while anything is queued or running.
 */
export const documentsRouter = createTRPCRouter({
  list: publicProcedure
    .input(z.strictObject({ space: spaceName.optional() }).optional())
    .query(({ ctx, input }) => documents.listDocuments(ctx.memo, input?.space)),
  get: publicProcedure.input(idInput).query(({ ctx, input }) => documents.getDocumentOr404(ctx.memo, input.id)),
  cancel: publicProcedure.input(idInput).mutation(({ ctx, input }) => documents.cancelDocument(ctx.memo, input.id)),
  delete: publicProcedure.input(idInput).mutation(({ ctx, input }) => documents.deleteDocument(ctx.memo, input.id)),
  reingest: publicProcedure.input(idInput).mutation(({ ctx, input }) => documents.reingestDocument(ctx.memo, input.id)),
  restore: publicProcedure.input(idInput).mutation(({ ctx, input }) => documents.restoreDocument(ctx.memo, input.id)),
  limits: publicProcedure.query(({ ctx }) => documents.uploadLimits(ctx.memo)),
});
