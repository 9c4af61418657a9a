import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for `/settings`: the Retrieval and Spaces sections (app/settings/retrieval-section.tsx, spaces-section.tsx). */
export class SettingsPage {
  readonly heading: Locator;
  readonly retrieval: Locator;
  readonly retrievalForm: Locator;
  readonly retrievalSaved: Locator;
  /** Settings → Retrieval's memory techniques (server/memory/retrieval/techniques.ts), each with its default. */
  readonly techniqueSettings: Locator;
  readonly spaces: Locator;
  readonly spaceRows: Locator;
  readonly spacesNotice: Locator;
  /** The section menu: a side list of links on a desktop… */
  readonly sectionMenu: Locator;
  /** …and a select on a phone. */
  readonly sectionSelect: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Settings", exact: true });
    this.retrieval = page.getByTestId("retrieval-section");
    this.retrievalForm = this.retrieval.getByRole("form", { name: "Retrieval settings" });
    this.retrievalSaved = page.getByTestId("retrieval-saved");
    this.techniqueSettings = this.retrievalForm.getByTestId("technique-settings");
    this.spaces = page.getByTestId("spaces-section");
    this.spaceRows = page.getByTestId("space-row");
    this.spacesNotice = page.getByTestId("spaces-notice");
    this.sectionMenu = page.getByRole("navigation", { name: "Settings sections" });
    this.sectionSelect = page.getByRole("combobox", { name: "Go to section" });
  }

  async goto(): Promise<void> {
    await this.page.goto("/settings");
    await expect(this.heading).toBeVisible();
    await expect(this.retrievalForm).toBeVisible();
    await this.openAdvanced();
  }

  /** Open Retrieval's "Advanced" fields (the browser remembers it open across reloads). */
  async openAdvanced(): Promise<void> {
    const advanced = this.retrievalForm.getByTestId("retrieval-advanced");
    if ((await advanced.getAttribute("open")) === null) await advanced.locator("summary").click();
    await expect(advanced).toHaveAttribute("open", "");
  }

  /** A numeric technique's field (spinbutton) or a switch's checkbox, by its label. */
  technique(label: string, kind: "number" | "switch" = "number"): Locator {
    return kind === "number"
      ? this.techniqueSettings.getByRole("spinbutton", { name: label, exact: true })
      : this.techniqueSettings.getByRole("checkbox", { name: new RegExp(`^${label}`) });
  }

  async saveRetrieval(): Promise<void> {
    await this.retrievalForm.getByRole("button", { name: "Save retrieval settings" }).click();
  }

  spaceRow(name: string): Locator {
    return this.page.locator(`[data-testid="space-row"][data-space="${name}"]`);
  }

  async createSpace(name: string): Promise<void> {
    await this.spaces.getByRole("textbox", { name: "New space" }).fill(name);
    await this.spaces.getByRole("button", { name: "Create" }).click();
    await expect(this.spacesNotice).toHaveText(`Created space ${name}.`);
  }

  async renameSpace(from: string, to: string): Promise<void> {
    await this.spaces.getByRole("button", { name: `Rename ${from}` }).click();
    await this.spaces.getByRole("textbox", { name: `New name for ${from}` }).fill(to);
    await this.spaces.getByRole("button", { name: "Save name" }).click();
    await expect(this.spacesNotice).toContainText(`Renamed ${from} to ${to}`);
  }

  async deleteSpace(name: string): Promise<void> {
    await this.spaces.getByRole("button", { name: `Delete ${name}` }).click();
    const confirm = this.spaces.getByRole("form", { name: `Confirm deleting ${name}` });
    const button = confirm.getByRole("button", { name: "Delete space" });
    await expect(button).toBeDisabled();
    await confirm.getByRole("textbox").fill(name);
    await button.click();
    await expect(this.spacesNotice).toContainText(`Deleted space ${name}`);
  }
}
