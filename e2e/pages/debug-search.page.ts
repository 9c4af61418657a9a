import { expect, type Locator, type Page } from "@playwright/test";

export type MatchType = "vector" | "fts" | "hybrid";

/** Page object for `/memory/search` (app/memory/search/debug-search.tsx and embedder-banner.tsx). */
export class DebugSearchPage {
  readonly heading: Locator;
  readonly banner: Locator;
  readonly queryInput: Locator;
  readonly searchButton: Locator;
  readonly spaceSelect: Locator;
  readonly kInput: Locator;
  readonly anchorQuery: Locator;
  readonly qualityFilter: Locator;
  readonly context: Locator;
  /** The turn's date ("As of", a browser-local date-time; empty = now). */
  readonly asOf: Locator;
  readonly resultsSection: Locator;
  readonly results: Locator;
  readonly badges: Locator;
  readonly timings: Locator;
  readonly noMatch: Locator;
  readonly error: Locator;
  readonly searching: Locator;
  /** The would-be-packed line's note that this search's pool is not a chat turn's. */
  readonly poolDiffers: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Memory · Debug Search" });
    this.banner = page.getByTestId("embedder-banner");
    const form = page.getByRole("form", { name: "Search memories" });
    this.queryInput = page.locator("#q");
    this.searchButton = form.getByRole("button", { name: "Search" });
    this.spaceSelect = form.getByRole("combobox", { name: "Space" });
    this.kInput = form.getByRole("spinbutton", { name: "k" });
    this.anchorQuery = form.getByRole("checkbox", { name: "Anchor query" });
    this.qualityFilter = form.getByRole("checkbox", { name: "Quality filter" });
    this.context = form.getByRole("textbox", { name: /Conversation context/ });
    this.asOf = form.getByLabel("As of");
    this.resultsSection = page.getByRole("region", { name: "Results" });
    this.results = page.getByTestId("result");
    this.poolDiffers = page.getByTestId("pool-differs");
    this.badges = this.results.getByTestId("match-badge");
    this.timings = page.getByTestId("timings");
    this.noMatch = page.getByText("No memory matched.");
    this.error = page.getByRole("main").getByRole("alert"); // not Next's empty route announcer
    this.searching = page.getByText("Searching…");
  }

  async goto(): Promise<void> {
    await this.page.goto("/memory/search");
    await expect(this.heading).toBeVisible();
  }

  /** Pick a space; the list is loaded when the page opens, so add memories to a new space before goto(). */
  async selectSpace(space: string): Promise<void> {
    await expect(this.spaceSelect.locator("option", { hasText: space })).toHaveCount(1);
    await this.spaceSelect.selectOption(space);
  }

  /** Fill the form and submit; resolves once the search request has answered (results or an error). */
  async search(
    query: string,
    opts: {
      space?: string;
      k?: number;
      context?: string[];
      qualityFilter?: boolean;
      anchorQuery?: boolean;
      /** "YYYY-MM-DDTHH:mm", browser-local. */
      asOf?: string;
    } = {},
  ): Promise<void> {
    if (opts.space !== undefined) await this.selectSpace(opts.space);
    if (opts.k !== undefined) await this.kInput.fill(String(opts.k));
    if (opts.context !== undefined) await this.context.fill(opts.context.join("\n"));
    if (opts.qualityFilter !== undefined) await this.qualityFilter.setChecked(opts.qualityFilter);
    if (opts.anchorQuery !== undefined) await this.anchorQuery.setChecked(opts.anchorQuery);
    if (opts.asOf !== undefined) await this.asOf.fill(opts.asOf);
    await this.queryInput.fill(query);
    await this.afterSearchRequest(() => this.searchButton.click());
  }

  /** Toggle the quality filter; the page re-runs the submitted search with the new setting. */
  async setQualityFilter(on: boolean): Promise<void> {
    await this.afterSearchRequest(() => this.qualityFilter.setChecked(on));
  }

  /** Run an action that triggers a memory.search request, wait for its answer and for the page to settle. */
  private async afterSearchRequest(action: () => Promise<void>): Promise<void> {
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/") && r.url().includes("memory.search"),
    );
    await action();
    await answered;
    await expect(this.searching).toBeHidden();
    await expect(this.timings.or(this.error)).toBeVisible();
  }

  async resultCount(): Promise<number> {
    return this.results.count();
  }

  /** Badge texts, in rank order. */
  async matchTypes(): Promise<MatchType[]> {
    return (await this.badges.allInnerTexts()).map((t) => t.trim() as MatchType);
  }

  /** Result contents, in rank order. */
  async contents(): Promise<string[]> {
    return (await this.results.locator("p").allInnerTexts()).map((t) => t.trim());
  }

  result(rank: number): Locator {
    return this.results.nth(rank);
  }
}
