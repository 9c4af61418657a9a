import { createCallerFactory, createTRPCRouter } from "./trpc";
import { healthRouter } from "./routers/health";
import { memoryRouter } from "./routers/memory";

export const appRouter = createTRPCRouter({
  memory: memoryRouter,
  health: healthRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
