import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { AnalyticsPage } from "./pages/analytics.page";
import { IngestPage } from "./pages/ingest.page";
import { ManagerPage } from "./pages/manager.page";

/**
 * The memory pages as a new user sees them: Manager columns at 1280 px and its undo next to the row,
 * Analytics with one old import (bucketed, not stretching the axis) and figures that say what they count,
 * Debug Search's real defaults before a search, Ingest's space picker and identical re-upload. Writes
 * screenshots of Manager and Analytics at 1280×800 and 390×844 to test-results/screenshots/.
 */

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
const DAY = 86_400_000;

test.describe("Manager and Analytics", () => {
  test("Manager at 1280 px: short columns stay readable; a delete offers Undo where the row was", async ({
    page,
    api,
    space,
    consoleWatch,
  }) => {
    void consoleWatch;
    await page.setViewportSize({ width: 1280, height: 800 });
    await api.addMemories([
      {
        text: `First memory with a rather long text that goes on and on about the garden, the roses, the tomatoes and the weather ${"and more ".repeat(20)}`,
        space,
        kind: "chat",
      },
      { text: "Second memory: the middle one", space, kind: "remember" },
      { text: "Third memory, the last one", space, kind: "import" },
    ]);
    const m = new ManagerPage(page);
    await m.goto();
    await m.showSpace(space);
    await expect(m.rows).toHaveCount(3);
    // One line each: the Space, Kind and Recalled cells are not squeezed letter by letter.
    for (const col of [2, 3, 5]) {
      const cell = m.rows.first().locator("td").nth(col);
      const box = (await cell.boundingBox())!;
      expect(box.width, `column ${col} width`).toBeGreaterThan(60);
      const lineHeight = await cell.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20);
      const textHeight = await cell.evaluate((el) => {
        const r = document.createRange();
        r.selectNodeContents(el);
        return r.getBoundingClientRect().height;
      });
      expect(textHeight, `column ${col} on one line`).toBeLessThanOrEqual(lineHeight * 1.5);
    }
    await shot(page, "manager-1280");

    const order = await m.contents();
    const middle = m.row(order[1]!.slice(0, 20));
    await middle.getByRole("button", { name: "Delete" }).click();
    const toast = page.getByTestId("undo-toast");
    await expect(toast).toBeVisible();
    await expect(m.rows).toHaveCount(2);
    // Where the row was: below the first row, above the (former) third.
    const rows = page.locator("tbody > tr");
    await expect(rows.nth(1)).toHaveAttribute("data-testid", "undo-toast");
    await expect(toast).toContainText("Deleted “");
    await toast.getByRole("button", { name: "Undo" }).click();
    await expect(m.rows).toHaveCount(3);
    await expect(toast).toHaveCount(0);
    expect(await m.contents()).toEqual(order);

    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "manager-390");
  });

  test("Analytics: an old import is one leading bar, and the figures say what they count", async ({
    page,
    api,
    space,
    consoleWatch,
  }) => {
    void consoleWatch;
    const now = Date.now();
    await api.addMemories([
      ...Array.from({ length: 24 }, (_, i) => ({
        text: `Recent note ${i} about the week`,
        space,
        kind: "chat" as const,
        timestamp: new Date(now - (i % 12) * DAY).toISOString(),
      })),
      { text: "An exchange imported from 2023", space, kind: "import" as const, timestamp: "2023-02-01T10:00:00.000Z" },
    ]);
    const a = new AnalyticsPage(page);
    await page.setViewportSize({ width: 1280, height: 800 });
    await a.goto();
    await a.showSpace(space);
    await expect(a.overTime).toContainText("per day");
    // Dates as the page shows them: the browser's locale and zone (app/_ui/local-time.ts).
    const from = await page.evaluate(() =>
      new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(new Date("2023-02-01T10:00:00.000Z")),
    );
    await expect(page.getByTestId("over-time-earlier")).toContainText(`the 1 older memory (from ${from})`);
    // The axis's "before …" bar, its day in the same locale style ("before Nov 8, 2026" in en-US, issue 57).
    await expect(a.overTime.locator("svg").getByText(/^before \S.* \d{4}$/)).toHaveCount(1);
    await expect(a.stat("memories")).toContainText("live now");
    await expect(a.stat("added-week")).toContainText("still live");
    await expect(a.overTime).toContainText("add up to the 25 memories above");
    await shot(page, "analytics-1280");
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "analytics-390");
  });
});

test.describe("Debug Search and Ingest", () => {
  test("Debug Search shows the saved default before the first search", async ({ page, consoleWatch }) => {
    void consoleWatch;
    const saved = await page.request.get("/api/trpc/retrievalSettings.get");
    const n = ((await saved.json()) as { result: { data: { settings: { contextMessages: number } } } }).result.data
      .settings.contextMessages;
    await page.goto("/memory/search");
    await expect(page.getByRole("combobox", { name: "Context messages" }).locator("option").first()).toHaveText(
      `default (${n})`,
    );
  });

  test("Ingest: pick a space or New space…; an identical re-upload says it is already stored", async ({
    page,
    space,
    consoleWatch,
  }) => {
    void consoleWatch;
    const ingest = new IngestPage(page);
    await ingest.goto();
    await expect(ingest.spaceInput.locator("option").last()).toHaveText("New space…");
    await ingest.setSpace(space);
    const file = {
      name: "notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from(`# Notes ${space}\n\nThe heron nests by the river.\n`),
    };
    await ingest.upload([file]);
    await expect(ingest.documents).toHaveCount(1);
    await ingest.upload([file]);
    await expect(page.getByTestId("ingest-notice")).toContainText(`notes.md is already stored in '${space}'`);
    await expect(ingest.documents).toHaveCount(1);
    // The new space is now an existing one to pick.
    await ingest.goto();
    await expect(ingest.spaceInput.locator("option", { hasText: space })).toHaveCount(1);
    await ingest.setSpace(space);
    await expect(ingest.spaceInput).toHaveValue(space);
  });
});
