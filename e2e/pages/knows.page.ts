import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for `/memory/knows`, "What Memo knows" (app/memory/knows/*). */
export class KnowsPage {
  readonly heading: Locator;
  readonly search: Locator;
  readonly count: Locator;
  readonly facts: Locator;
  readonly notice: Locator;
  readonly undoBar: Locator;
  readonly empty: Locator;
  readonly none: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Memory · What Memo knows" });
    this.search = page.getByRole("search", { name: "Search facts" }).getByRole("searchbox", { name: "Search" });
    this.count = page.getByTestId("facts-count");
    this.facts = page.getByTestId("fact");
    this.notice = page.getByTestId("facts-notice");
    this.undoBar = page.getByTestId("fact-undo");
    this.empty = page.getByTestId("facts-empty");
    this.none = page.getByTestId("facts-none");
    this.root = page;
  }

  async goto(): Promise<void> {
    await this.page.goto("/memory/knows");
    await expect(this.heading).toBeVisible();
    await this.settled();
  }

  /** Wait until every list shows the current search's answer. */
  async settled(): Promise<void> {
    await expect(this.page.getByTestId("facts")).toHaveAttribute("aria-busy", "false");
    await expect(this.page.getByText("Loading what Memo knows…")).toHaveCount(0);
  }

  /** A space's section (its heading is the space's name). */
  space(name: string): Locator {
    return this.page
      .getByTestId("fact-space")
      .filter({ has: this.page.getByRole("heading", { name: new RegExp(`^${escapeRe(name)}( |$)`) }) });
  }

  /** Where fact(text) looks: the whole page, or (useSpace) one space's section, when other spaces hold the same texts. */
  private root: Locator | Page;

  useSpace(name: string): void {
    this.root = this.space(name);
  }

  fact(text: string, within: Locator | Page = this.root): Locator {
    return within
      .getByTestId("fact")
      .filter({ has: this.page.getByTestId("fact-text").getByText(text, { exact: true }) });
  }

  /** The texts of the facts listed in a space. */
  async texts(space: string): Promise<string[]> {
    return (await this.space(space).getByTestId("fact-text").allInnerTexts()).map((t) => t.trim());
  }

  async find(q: string): Promise<void> {
    await this.search.fill(q);
    await expect(this.page.getByTestId("facts")).toHaveAttribute("data-query", q.trim());
    await this.settled();
  }

  async edit(text: string, next: string): Promise<void> {
    await this.fact(text)
      .getByRole("button", { name: `Edit: ${text}` })
      .click();
    await this.page.getByRole("textbox", { name: "Fact" }).fill(next);
    await this.page.getByRole("form", { name: "Edit fact" }).getByRole("button", { name: "Save" }).click();
    await expect(this.notice).toHaveText("Saved as a new version; the old value is in its history.");
    await this.settled();
  }

  async confirm(text: string): Promise<void> {
    await this.fact(text)
      .getByRole("button", { name: `Confirm: ${text}` })
      .click();
    await expect(this.notice).toHaveText("Confirmed.");
    await expect(this.fact(text).getByTestId("fact-confirmed")).toBeVisible();
  }

  /**
   * Delete a fact. A fact with sources asks first whether to forget the messages it came from too (issue 54):
   * `forgetSources` answers that (default: the fact only).
   */
  async delete(text: string, opts: { forgetSources?: boolean } = {}): Promise<void> {
    const f = this.fact(text);
    await f.getByRole("button", { name: `Delete: ${text}` }).click();
    const ask = f.getByTestId("fact-delete-confirm");
    await expect(ask.or(this.undoBar)).toBeVisible();
    if (await ask.isVisible())
      await ask.getByTestId(opts.forgetSources ? "fact-delete-forget" : "fact-delete-only").click();
    await expect(this.undoBar).toBeVisible();
    await this.settled();
  }

  async undo(): Promise<void> {
    await this.undoBar.getByRole("button", { name: "Undo" }).click();
    await expect(this.notice).toHaveText("Brought back, with its history.");
    await this.settled();
  }

  /** Open a fact's history; resolves with its earlier values once loaded. */
  async history(text: string): Promise<Locator> {
    const f = this.fact(text);
    await f.getByRole("button", { name: "Show history" }).click();
    const panel = f.getByTestId("fact-history");
    await expect(panel.getByText("Loading the history…")).toHaveCount(0);
    return panel.getByTestId("fact-version");
  }

  /** Open a fact's sources; resolves with their links once loaded. */
  async sources(text: string): Promise<Locator> {
    const f = this.fact(text);
    await f.getByRole("button", { name: /^Sources \(\d+\)$/ }).click();
    const panel = f.getByTestId("fact-sources");
    await expect(panel.getByText("Loading the sources…")).toHaveCount(0);
    return panel.getByTestId("fact-source-link");
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
