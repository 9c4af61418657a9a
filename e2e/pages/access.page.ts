import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for Settings → Access (app/settings/access-section.tsx): mode, API tokens, password. */
export class AccessPage {
  readonly section: Locator;
  readonly mode: Locator;
  readonly notice: Locator;
  readonly tokenName: Locator;
  readonly createToken: Locator;
  readonly newToken: Locator;
  readonly newTokenValue: Locator;
  readonly tokenRows: Locator;

  constructor(readonly page: Page) {
    this.section = page.getByTestId("access-section");
    this.mode = page.getByTestId("access-mode");
    this.notice = page.getByTestId("access-notice");
    this.tokenName = this.section.getByRole("textbox", { name: "Token name" });
    this.createToken = this.section.getByRole("button", { name: "Create token" });
    this.newToken = page.getByTestId("new-token");
    this.newTokenValue = page.getByTestId("new-token-value");
    this.tokenRows = page.getByTestId("token-row");
  }

  async goto(): Promise<void> {
    await this.page.goto("/settings");
    await expect(this.section.getByRole("heading", { name: "Access" })).toBeVisible();
    await expect(this.mode).toBeVisible();
  }

  tokenRow(name: string): Locator {
    return this.page.locator(`[data-testid="token-row"][data-token-name="${name}"]`);
  }

  /** Create a token and return its secret, shown once. */
  async create(name: string): Promise<string> {
    // Filled before React hydrates the section, the box's text is not in its state (the button stays disabled):
    // fill again until the button takes it (seen once in CI, right after a sign-in's redirect to Settings).
    await expect(async () => {
      await this.tokenName.fill(name);
      await expect(this.createToken).toBeEnabled({ timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await this.createToken.click();
    await expect(this.newToken).toContainText(`Token “${name}”`);
    const token = (await this.newTokenValue.textContent())!.trim();
    await this.newToken.getByRole("button", { name: "Done" }).click();
    await expect(this.tokenRow(name)).toBeVisible();
    return token;
  }

  async revoke(name: string): Promise<void> {
    await this.tokenRow(name)
      .getByRole("button", { name: `Revoke ${name}` })
      .click();
    await expect(this.notice).toContainText("Token revoked");
    await expect(this.tokenRow(name)).toContainText("revoked");
  }
}
