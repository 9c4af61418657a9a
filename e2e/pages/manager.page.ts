import { expect, type Locator, type Page } from "@playwright/test";
import { IMPORT_FORMATS, type ImportFormatId } from "../../server/services/import/formats";

/** Page object for `/memory/manager` (app/memory/manager/manager.tsx and import-export.tsx). */
export class ManagerPage {
  readonly heading: Locator;
  readonly filters: Locator;
  readonly text: Locator;
  readonly space: Locator;
  readonly kind: Locator;
  readonly pinned: Locator;
  readonly status: Locator;
  readonly rows: Locator;
  readonly pageInfo: Locator;
  readonly notice: Locator;
  readonly error: Locator;
  readonly bulk: Locator;
  readonly selectAll: Locator;
  readonly jobs: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Memory · Manager" });
    this.filters = page.getByRole("search", { name: "Filter memories" });
    this.text = this.filters.getByRole("searchbox", { name: "Text contains" });
    this.space = this.filters.getByRole("combobox", { name: "Space" });
    this.kind = this.filters.getByRole("combobox", { name: "Kind" });
    this.pinned = this.filters.getByRole("combobox", { name: "Pinned" });
    this.status = this.filters.getByRole("combobox", { name: "Status" });
    this.rows = page.getByTestId("memory-row");
    this.pageInfo = page.getByTestId("page-info");
    this.notice = page.getByTestId("manager-notice");
    this.error = page.getByRole("main").getByRole("alert");
    this.bulk = page.getByRole("toolbar", { name: "Bulk actions" });
    this.selectAll = page.getByRole("checkbox", { name: "Select all on this page" });
    this.jobs = page.getByTestId("import-job");
  }

  async goto(): Promise<void> {
    await this.page.goto("/memory/manager");
    await expect(this.heading).toBeVisible();
    await expect(this.pageInfo).toBeVisible();
  }

  /** Show one space (the list of spaces is read when the page opens: add memories before goto()). */
  async showSpace(space: string): Promise<void> {
    await expect(this.space.locator("option", { hasText: space })).toHaveCount(1);
    await this.space.selectOption(space);
    await this.settled();
  }

  async showStatus(status: "live" | "deleted" | "all"): Promise<void> {
    await this.status.selectOption(status);
    await this.settled();
  }

  /** Wait until the table shows the current filter's answer. */
  async settled(): Promise<void> {
    await expect(this.page.getByRole("table", { name: "Memories" })).toHaveAttribute("aria-busy", "false");
  }

  row(text: string): Locator {
    return this.rows.filter({ has: this.page.getByTestId("memory-content").filter({ hasText: text }) });
  }

  async contents(): Promise<string[]> {
    return (await this.rows.getByTestId("memory-content").allInnerTexts()).map((t) => t.trim());
  }

  private async act(row: Locator, name: string, notice: RegExp): Promise<void> {
    await row.getByRole("button", { name, exact: true }).click();
    await expect(this.notice).toHaveText(notice);
    await this.settled();
  }

  async pin(text: string): Promise<void> {
    await this.act(this.row(text), "Pin", /^Pinned 1\./);
  }

  async unpin(text: string): Promise<void> {
    await this.act(this.row(text), "Unpin", /^Unpinned 1\./);
  }

  async delete(text: string): Promise<void> {
    await this.act(this.row(text), "Delete", /^Deleted 1\./);
  }

  async restore(text: string): Promise<void> {
    await this.act(this.row(text), "Restore", /^Restored 1\./);
  }

  async setImportance(text: string, importance: number): Promise<void> {
    await this.row(text).getByRole("combobox", { name: "Importance" }).selectOption(String(importance));
    await expect(this.notice).toHaveText(/^Importance set on 1/);
    await this.settled();
  }

  async edit(text: string, next: string): Promise<void> {
    const row = this.row(text);
    await row.getByRole("button", { name: "Edit", exact: true }).click();
    const box = this.page.getByRole("textbox", { name: "Content" });
    await box.fill(next);
    await this.page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(this.notice).toHaveText("Saved; the memory was re-embedded.");
    await this.settled();
  }

  async select(text: string): Promise<void> {
    await this.row(text).getByRole("checkbox").check();
  }

  async bulkAction(name: string, notice: RegExp): Promise<void> {
    await this.bulk.getByRole("button", { name, exact: true }).click();
    await expect(this.notice).toHaveText(notice);
    await this.settled();
  }

  /** Upload a file through the import form with the format picked; resolves once the import route answered. */
  async importFile(kind: ImportFormatId, file: string, space?: string): Promise<void> {
    const form = this.page.getByRole("form", { name: "Import" });
    await form.getByRole("combobox", { name: "Format" }).selectOption(kind);
    await form.getByLabel(IMPORT_FORMATS[kind].fileLabel).setInputFiles(file);
    if (space !== undefined) await form.getByRole("combobox", { name: /Into space/ }).fill(space);
    const answered = this.page.waitForResponse(
      (r) => r.url().includes("/api/v1/import") && r.request().method() === "POST",
    );
    await form.getByRole("button", { name: "Import" }).click();
    await answered;
  }

  job(label: RegExp | string): Locator {
    return this.jobs.filter({ hasText: label });
  }
}
