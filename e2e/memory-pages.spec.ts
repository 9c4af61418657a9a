import { test, expect } from "./memory-fixtures";
import { seedShowcase, SHOWCASE_SPACE } from "./support/showcase";
import { expectNoHorizontalScroll } from "./support/layout";

/** Every memory page loads without console errors, fits a phone screen, and works from the keyboard. Screenshots: test-results/*.png */

test.describe("memory pages", () => {
  test.beforeEach(async ({ api }) => {
    await seedShowcase(api);
  });

  test("Debug Search: results, score bars, timings per stage and dropped candidates", async ({ pipeline, page }) => {
    await pipeline.goto();
    await pipeline.search("What does my dog like to play with?", { space: SHOWCASE_SPACE, k: 5 });
    await expect(pipeline.error).toBeHidden();
    await expect(pipeline.results.first()).toBeVisible();
    await expect(pipeline.stages).toHaveCount(5);
    await expect(pipeline.vectorSource).toContainText(/ANN index|vec0 exact scan/);
    await expect(pipeline.queriesPanel).toContainText("What does my dog like to play with?");
    await page.screenshot({ path: "test-results/debug-search-full.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: "test-results/debug-search-full-narrow.png", fullPage: true });
  });

  test("Manager loads, lists the space, and fits a phone screen", async ({ manager, page }) => {
    await manager.goto();
    await manager.showSpace(SHOWCASE_SPACE);
    await expect(manager.rows).toHaveCount(9);
    await expect(manager.pageInfo).toHaveText("9 memories · page 1 of 1");
    await page.screenshot({ path: "test-results/manager.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: "test-results/manager-narrow.png", fullPage: true });
  });

  test("Analytics loads with its charts and fits a phone screen", async ({ analytics, page }) => {
    await analytics.goto();
    await analytics.showSpace(SHOWCASE_SPACE);
    await expect(analytics.stat("memories")).toContainText("9");
    await expect(analytics.overTime.locator("svg .recharts-bar-rectangle").first()).toBeVisible();
    await expect(analytics.recall.locator("svg")).toBeVisible();
    await page.screenshot({ path: "test-results/analytics.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: "test-results/analytics-narrow.png", fullPage: true });
  });

  test("Settings loads its retrieval and spaces sections and fits a phone screen", async ({ settings, page }) => {
    await settings.goto();
    await expect(settings.spaceRow(SHOWCASE_SPACE)).toBeVisible();
    await expect(settings.spaceRow("personal")).toContainText("default");
    await page.screenshot({ path: "test-results/settings.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: "test-results/settings-narrow.png", fullPage: true });
  });

  test("navigation: one layout, current page marked, skip link and keyboard focus", async ({ manager, page }) => {
    await manager.goto();
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const name of ["Chat", "Ingest", "Debug Search", "Manager", "Facts", "Analytics", "Settings"])
      await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Manager", exact: true })).toHaveAttribute("aria-current", "page");
    await expect(nav.getByRole("link", { name: "Analytics", exact: true })).not.toHaveAttribute("aria-current", "page");

    // The first Tab reaches the skip link; Enter moves focus to the page content, past the navigation.
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(page.locator("main")).toBeFocused();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => !!document.activeElement?.closest("main"))).toBe(true);
    // A visible focus ring on keyboard focus.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe("none");

    // Keyboard-only navigation to another page.
    await nav.getByRole("link", { name: "Analytics", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Memory · Analytics" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Analytics", exact: true })).toHaveAttribute("aria-current", "page");

    // Phone width: every link still reachable without horizontal scrolling.
    await page.setViewportSize({ width: 360, height: 740 });
    for (const name of ["Chat", "Ingest", "Debug Search", "Manager", "Facts", "Analytics", "Settings"])
      await expect(nav.getByRole("link", { name, exact: true })).toBeInViewport();
    await expectNoHorizontalScroll(page);
  });
});
