import { expect, type Locator, type Page } from "@playwright/test";

export interface UploadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** Page object for `/ingest` (app/ingest/ingest.tsx). */
export class IngestPage {
  readonly heading: Locator;
  readonly spaceInput: Locator;
  readonly fileInput: Locator;
  readonly dropZone: Locator;
  readonly documentsSection: Locator;
  readonly documents: Locator;
  readonly uploading: Locator;
  readonly requestError: Locator;
  /** What the last upload answered besides errors (a duplicate, a forgotten file restored). */
  readonly notice: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Ingest documents" });
    this.spaceInput = page.getByRole("combobox", { name: "Space" });
    this.fileInput = page.getByLabel("Choose files to ingest");
    this.dropZone = page.getByRole("group", { name: "Upload documents" });
    this.documentsSection = page.getByRole("region", { name: "Documents" });
    this.documents = page.getByTestId("document");
    this.uploading = page.getByTestId("uploading");
    this.requestError = page.getByRole("main").getByRole("alert");
    this.notice = page.getByTestId("ingest-notice");
  }

  async goto(): Promise<void> {
    await this.page.goto("/ingest");
    await expect(this.heading).toBeVisible();
  }

  /** Pick an existing space, or "New space…" and type its name. */
  async setSpace(space: string): Promise<void> {
    const known = await this.spaceInput.locator("option").allTextContents();
    if (known.includes(space)) await this.spaceInput.selectOption(space);
    else {
      await this.spaceInput.selectOption({ label: "New space…" });
      await this.page.getByRole("textbox", { name: "New space name" }).fill(space);
    }
    await expect(this.documentsSection.getByRole("heading", { name: `Documents in ${space}` })).toBeVisible();
  }

  /** Pick files with the file picker (the page uploads them one request per file, in order). */
  async upload(files: UploadFile[]): Promise<void> {
    await this.fileInput.setInputFiles(files);
  }

  /** Drop files on the drop zone, as a drag from the desktop would. */
  async drop(files: UploadFile[]): Promise<void> {
    const dataTransfer = await this.page.evaluateHandle(
      (fs: { name: string; mimeType: string; data: number[] }[]) => {
        const dt = new DataTransfer();
        for (const f of fs) dt.items.add(new File([new Uint8Array(f.data)], f.name, { type: f.mimeType }));
        return dt;
      },
      files.map((f) => ({ name: f.name, mimeType: f.mimeType, data: [...f.buffer] })),
    );
    await this.dropZone.dispatchEvent("dragenter", { dataTransfer });
    await this.dropZone.dispatchEvent("drop", { dataTransfer });
  }

  row(name: string): Locator {
    return this.documents.filter({ has: this.page.getByTestId("document-name").getByText(name, { exact: true }) });
  }

  progress(name: string): Locator {
    return this.row(name).getByRole("progressbar");
  }

  status(name: string): Locator {
    return this.row(name).getByTestId("document-status");
  }

  /** "n of m passages live — forgotten on …": shown when some of a document was forgotten. */
  liveness(name: string): Locator {
    return this.row(name).getByTestId("document-liveness");
  }

  error(name: string): Locator {
    return this.row(name).getByTestId("document-error");
  }

  /** aria-valuenow of a row's progress bar (null while it is indeterminate or absent). */
  async progressValue(name: string): Promise<number | null> {
    const bar = this.progress(name);
    if ((await bar.count()) === 0) return null;
    const v = await bar.getAttribute("aria-valuenow");
    return v === null ? null : Number(v);
  }

  /**
   * A row's status and progress label read together, from one render: read one after the other, a poll can
   * see "processing" and then the done row's "157 chunks".
   */
  async statusAndLabel(name: string): Promise<{ status: string; label: string } | null> {
    const row = this.row(name);
    if ((await row.count()) === 0) return null;
    return row.evaluate((el) => ({
      status: el.getAttribute("data-status") ?? "",
      label: el.querySelector('[data-testid="progress-text"]')?.textContent ?? "",
    }));
  }

  async delete(name: string): Promise<void> {
    await this.row(name)
      .getByRole("button", { name: `Delete ${name}` })
      .click();
    await this.row(name)
      .getByRole("button", { name: `Confirm delete ${name}` })
      .click();
    await expect(this.row(name)).toHaveCount(0);
  }

  /** A failed row goes at once (nothing of it was kept). */
  async dismiss(name: string): Promise<void> {
    await this.row(name)
      .getByRole("button", { name: `Dismiss ${name}` })
      .click();
    await expect(this.row(name)).toHaveCount(0);
  }

  async reingest(name: string): Promise<void> {
    await this.row(name)
      .getByRole("button", { name: `Re-ingest ${name}` })
      .click();
  }
}
