import { createCallerFactory, createTRPCRouter } from "./trpc";
import { healthRouter } from "./routers/health";
import { memoryRouter } from "./routers/memory";
import { documentsRouter } from "./routers/documents";
import { jobsRouter } from "./routers/jobs";
import { managerRouter } from "./routers/manager";
import { analyticsRouter } from "./routers/analytics";
import { spacesRouter } from "./routers/spaces";
import { retrievalSettingsRouter } from "./routers/retrieval-settings";
import { chatRouter } from "./routers/chat";
import { conversationsRouter } from "./routers/conversations";
import { providersRouter } from "./routers/providers";
import { accessRouter } from "./routers/access";
import { setupRouter } from "./routers/setup";
import { privacyRouter } from "./routers/privacy";
import { factsRouter } from "./routers/facts";
import { learningRouter } from "./routers/learning";
import { unkeptSettingsRouter } from "./routers/unkept-settings";

export const appRouter = createTRPCRouter({
  memory: memoryRouter,
  documents: documentsRouter,
  health: healthRouter,
  jobs: jobsRouter,
  manager: managerRouter,
  analytics: analyticsRouter,
  spaces: spacesRouter,
  retrievalSettings: retrievalSettingsRouter,
  chat: chatRouter,
  conversations: conversationsRouter,
  providers: providersRouter,
  access: accessRouter,
  setup: setupRouter,
  privacy: privacyRouter,
  facts: factsRouter,
  learning: learningRouter,
  unkeptSettings: unkeptSettingsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
