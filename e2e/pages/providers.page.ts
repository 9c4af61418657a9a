import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for Settings → Providers (app/settings/providers-section.tsx). */
export class ProvidersPage {
  readonly section: Locator;
  readonly form: Locator;
  readonly state: Locator;
  readonly notice: Locator;
  readonly baseUrl: Locator;
  readonly model: Locator;
  readonly apiKey: Locator;
  readonly timeout: Locator;
  readonly saveButton: Locator;
  readonly testButton: Locator;
  readonly resetButton: Locator;
  readonly testResult: Locator;

  constructor(readonly page: Page) {
    this.section = page.getByTestId("providers-section");
    this.form = this.section.getByRole("form", { name: "Provider settings" });
    this.state = page.getByTestId("provider-state");
    this.notice = page.getByTestId("providers-notice");
    const openai = this.form.getByRole("group", { name: "OpenAI-compatible endpoint" });
    this.baseUrl = openai.getByRole("textbox", { name: /Base URL/ });
    this.model = openai.getByRole("textbox", { name: /Model/ });
    this.apiKey = openai.getByLabel(/API key/);
    this.timeout = this.form.getByRole("spinbutton", { name: /Timeout/ });
    this.saveButton = this.form.getByRole("button", { name: "Save" });
    this.testButton = this.form.getByRole("button", { name: /^Test/ });
    this.resetButton = this.form.getByRole("button", { name: "Use environment only" });
    this.testResult = page.getByTestId("provider-test");
  }

  async goto(): Promise<void> {
    await this.page.goto("/settings");
    await expect(this.form).toBeVisible();
  }

  async choose(
    provider: "Local llama.cpp" | "OpenAI-compatible" | "Anthropic" | "None (memory commands only)",
  ): Promise<void> {
    await this.form.getByRole("radio", { name: new RegExp(`^${provider.replace(/[()]/g, "\\$&")}`) }).check();
  }

  async save(): Promise<void> {
    await this.saveButton.click();
    await expect(this.notice).toHaveText("Saved.");
  }

  async resetToEnvironment(): Promise<void> {
    await this.resetButton.click();
    await expect(this.notice).toContainText("the environment decides again");
  }
}
