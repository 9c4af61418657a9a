import { test as base, expect } from "@playwright/test";
import { DebugSearchPage } from "./pages/debug-search.page";
import { MemoApi, uniqueSpace } from "./support/memo-api";

/**
 * Console problems seen by the page during one test. Every test that uses `page` fails when the page logs a
 * console error or throws an uncaught exception, unless the test allowed that message with `allow(re)`.
 */
export interface ConsoleWatch {
  errors: string[];
  allow(pattern: RegExp): void;
}

interface Fixtures {
  api: MemoApi;
  space: string;
  debugSearch: DebugSearchPage;
  consoleWatch: ConsoleWatch;
}

export const test = base.extend<Fixtures>({
  api: async ({ request }, use) => {
    await use(new MemoApi(request));
  },
  space: async ({}, use, testInfo) => {
    await use(uniqueSpace(testInfo));
  },
  // Every test that uses the page object is watched (API-only tests never start a browser).
  consoleWatch: async ({ page }, use, testInfo) => {
    const errors: string[] = [];
    const allowed: RegExp[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console.error: ${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
    await use({ errors, allow: (re) => allowed.push(re) });
    const unexpected = errors.filter((e) => !allowed.some((re) => re.test(e)));
    if (testInfo.status === testInfo.expectedStatus) {
      expect(unexpected, "console errors on the page").toEqual([]);
    }
  },
  debugSearch: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new DebugSearchPage(page));
  },
});

export { expect };
