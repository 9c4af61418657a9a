import { expect, type Page } from "@playwright/test";

/**
 * No horizontal scrolling once the layout has settled. After a viewport change, charts and other
 * ResizeObserver-driven parts re-measure on a later frame, so the width is read until it fits; a real
 * overflow stays and fails after `timeout`.
 */
export async function expectNoHorizontalScroll(
  page: Page,
  message = "no horizontal scrolling",
  timeout = 5_000,
): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), {
      message,
      timeout,
    })
    .toBeLessThanOrEqual(0);
}
