import { createTRPCRouter, publicProcedure } from "../trpc";
import { health } from "../../services/memory-service";

export const healthRouter = createTRPCRouter({
  get: publicProcedure.query(({ ctx }) => health(ctx.memo)),
});
