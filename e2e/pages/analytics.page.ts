import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for `/memory/analytics` (app/memory/analytics/analytics.tsx). */
export class AnalyticsPage {
  readonly heading: Locator;
  readonly space: Locator;
  readonly basis: Locator;
  readonly overTime: Locator;
  readonly recall: Locator;
  readonly topRetrieved: Locator;
  readonly byKind: Locator;
  /** The background jobs' panel (app/memory/analytics/jobs-panel.tsx): Run now and the last runs. */
  readonly jobsPanel: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Memory · Analytics" });
    const scope = page.getByRole("form", { name: "Analytics scope" });
    this.space = scope.getByRole("combobox", { name: "Space" });
    this.basis = scope.getByRole("combobox", { name: "Over time by" });
    this.overTime = page.getByTestId("chart-over-time");
    this.recall = page.getByTestId("chart-recall");
    this.topRetrieved = page.getByTestId("top-retrieved");
    this.byKind = page.getByTestId("by-kind");
    this.jobsPanel = page.getByTestId("jobs-panel");
  }

  async goto(): Promise<void> {
    await this.page.goto("/memory/analytics");
    await expect(this.heading).toBeVisible();
    await expect(this.stat("memories")).toBeVisible();
    // Every part has loaded (the lifetime panel and the jobs' status come from their own queries and push what
    // is below them down when they arrive), so a layout read after this is the page's settled layout.
    await expect(this.page.getByTestId("lifetime-panel")).toBeVisible();
    await expect(this.jobsPanel).toHaveAttribute("aria-busy", "false");
  }

  async showSpace(space: string): Promise<void> {
    await expect(this.space.locator("option", { hasText: space })).toHaveCount(1);
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("analytics.overview") && decodeURIComponent(r.url()).includes(space),
    );
    await this.space.selectOption(space);
    await answered;
  }

  stat(id: "memories" | "pinned" | "added-week" | "expiring" | "retrievals"): Locator {
    return this.page.getByTestId(`stat-${id}`);
  }

  async value(id: Parameters<AnalyticsPage["stat"]>[0]): Promise<number> {
    return Number(await this.stat(id).locator("dd[data-value]").getAttribute("data-value"));
  }
}
