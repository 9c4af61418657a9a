import { test as base, expect } from "./fixtures";
import { AnalyticsPage } from "./pages/analytics.page";
import { DebugSearchPipelinePage } from "./pages/debug-search-pipeline.page";
import { ManagerPage } from "./pages/manager.page";
import { SettingsPage } from "./pages/settings.page";

/** The memory pages' page objects; each watches the console like the base fixtures' debugSearch. */
export const test = base.extend<{
  manager: ManagerPage;
  analytics: AnalyticsPage;
  settings: SettingsPage;
  pipeline: DebugSearchPipelinePage;
}>({
  manager: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new ManagerPage(page));
  },
  analytics: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new AnalyticsPage(page));
  },
  settings: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new SettingsPage(page));
  },
  pipeline: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new DebugSearchPipelinePage(page));
  },
});

export { expect };
