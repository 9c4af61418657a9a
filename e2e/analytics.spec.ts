import { test, expect } from "./memory-fixtures";

/** Analytics: the figures of a fresh space after known inserts, deletes and more inserts. */

test.describe("Analytics page", () => {
  test("shows the right counts after known inserts", async ({ api, space, analytics, page }) => {
    const ids = await api.addMemories([
      { text: "Analytics one: a chat about hiking boots", space, kind: "chat", timestamp: "2024-01-10T10:00:00.000Z" },
      {
        text: "Analytics two: the hiking guide chapter 3",
        space,
        kind: "document",
        timestamp: "2024-01-11T10:00:00.000Z",
      },
      {
        text: "Analytics three: always pack a rain jacket",
        space,
        kind: "remember",
        pinned: true,
        timestamp: "2024-02-01T10:00:00.000Z",
      },
      { text: "Analytics four: imported trail notes", space, kind: "import", timestamp: "2024-02-20T10:00:00.000Z" },
    ]);
    await api.deleteMemory(ids[3]![0]!);

    await analytics.goto();
    await analytics.showSpace(space);
    expect(await analytics.value("memories")).toBe(3);
    expect(await analytics.value("pinned")).toBe(1);
    expect(await analytics.value("added-week")).toBe(4); // stored today, including the one deleted since
    expect(await analytics.value("expiring")).toBe(0); // deleted today: purged in 30 days
    await expect(analytics.stat("expiring")).toContainText("1 soft-deleted; purged after 30 days");
    expect(await analytics.value("retrievals")).toBe(0);
    await expect(page.getByText("Nothing has been recalled yet.")).toBeVisible();
    for (const [kind, n] of [
      ["chat", 1],
      ["document", 1],
      ["remember", 1],
      ["import", 0],
      ["consolidated", 0],
    ] as const) {
      await expect(analytics.byKind.getByRole("listitem").filter({ hasText: kind })).toContainText(String(n));
    }
    // Over time by when it happened: daily buckets from January to February 2024, with bars.
    await expect(analytics.overTime).toContainText("per day");
    await expect(analytics.overTime.locator(".recharts-bar-rectangle").first()).toBeVisible();
    // By when it was stored: everything today, one bucket.
    await analytics.basis.selectOption("created");
    await expect(analytics.overTime).toContainText("by when it was stored");
    await expect(analytics.jobsPanel.getByRole("heading", { name: "Last runs" })).toBeVisible();

    // More inserts show up on reload.
    await api.addMemories([
      { text: "Analytics five: new boots arrived", space },
      { text: "Analytics six: the boots fit", space, pinned: true },
    ]);
    await page.reload();
    await analytics.showSpace(space);
    expect(await analytics.value("memories")).toBe(5);
    expect(await analytics.value("pinned")).toBe(2);
    expect(await analytics.value("added-week")).toBe(6);

    // All spaces together count at least this space.
    const all = page.waitForResponse(
      (r) => r.url().includes("analytics.overview") && !decodeURIComponent(r.url()).includes(space),
    );
    await analytics.space.selectOption("");
    await all;
    await expect(analytics.stat("memories")).toBeVisible();
    expect(await analytics.value("memories")).toBeGreaterThanOrEqual(5);
  });
});
