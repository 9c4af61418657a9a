import { expect, type Locator, type Page } from "@playwright/test";
import { DebugSearchPage } from "./debug-search.page";

/** `/memory/search` with the full pipeline options and panels (candidate pool, context messages, fusion, timings per stage, queries). */
export class DebugSearchPipelinePage extends DebugSearchPage {
  readonly pool: Locator;
  readonly contextMessages: Locator;
  readonly fusion: Locator;
  readonly stageTimings: Locator;
  readonly stages: Locator;
  readonly vectorSource: Locator;
  readonly queriesPanel: Locator;
  /** What the dense leg embedded, shown under a query where it differs from the query's text. */
  readonly denseTexts: Locator;
  readonly dropped: Locator;
  readonly droppedItems: Locator;
  /** The threshold the would-be-packed line uses for this search (empty: the saved one). */
  readonly minConfidence: Locator;
  /** The panel line naming the memory techniques that were off for the search shown. */
  readonly techniquesOff: Locator;
  readonly wouldBePacked: Locator;

  constructor(page: Page) {
    super(page);
    const form = page.getByRole("form", { name: "Search memories" });
    this.pool = form.getByRole("spinbutton", { name: "Candidate pool" });
    this.contextMessages = form.getByRole("combobox", { name: "Context messages" });
    this.fusion = form.getByRole("combobox", { name: "Fusion" });
    this.stageTimings = page.getByTestId("stage-timings");
    this.stages = this.stageTimings.getByTestId("stage");
    this.vectorSource = page.getByTestId("vector-source");
    this.queriesPanel = page.getByTestId("queries");
    this.denseTexts = this.queriesPanel.getByTestId("dense-text");
    this.dropped = page.getByTestId("dropped");
    this.droppedItems = page.getByTestId("dropped-item");
    this.minConfidence = form.getByRole("spinbutton", { name: "Minimum confidence" });
    this.techniquesOff = page.getByTestId("techniques-off");
    this.wouldBePacked = page.getByTestId("would-be-packed");
  }

  /** A memory technique's checkbox (its name is the label, then its value when it has one). */
  technique(label: string): Locator {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return this.page
      .getByRole("form", { name: "Search memories" })
      .getByTestId("techniques")
      .getByRole("checkbox", { name: new RegExp(`^${escaped}( |$)`) });
  }

  async setTechnique(label: string, on: boolean): Promise<void> {
    await this.change(() => this.technique(label).setChecked(on));
  }

  async setMinConfidence(v: number | null): Promise<void> {
    await this.change(() => this.minConfidence.fill(v === null ? "" : String(v)));
  }

  /** Change an option of the submitted search and wait for the re-run it triggers. */
  async change(action: () => Promise<void>): Promise<void> {
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("/api/trpc/") && r.url().includes("memory.search"),
    );
    await action();
    await answered;
    await expect(this.searching).toBeHidden();
    await expect(this.timings.or(this.error)).toBeVisible();
  }

  async setPool(n: number | null): Promise<void> {
    await this.change(() => this.pool.fill(n === null ? "" : String(n)));
  }

  async setContextMessages(n: number): Promise<void> {
    await this.change(async () => {
      await this.contextMessages.selectOption(String(n));
    });
  }

  async setFusion(f: "rrf" | "linear"): Promise<void> {
    await this.change(async () => {
      await this.fusion.selectOption(f);
    });
  }

  async setAnchorQuery(on: boolean): Promise<void> {
    await this.change(() => this.anchorQuery.setChecked(on));
  }

  /** The query texts shown in the pipeline panel with their role (main, anchor). */
  async queries(): Promise<{ role: string; text: string }[]> {
    const items = this.queriesPanel.locator("ol > li");
    const n = await items.count();
    const out: { role: string; text: string }[] = [];
    for (let i = 0; i < n; i++) {
      const spans = items.nth(i).locator("span");
      out.push({ role: (await spans.nth(0).innerText()).trim(), text: (await spans.nth(1).innerText()).trim() });
    }
    return out;
  }
}
