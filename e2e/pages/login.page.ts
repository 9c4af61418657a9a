import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for `/login` (app/login/) and the navigation's Sign out button. */
export class LoginPage {
  readonly heading: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;
  readonly status: Locator;
  readonly signOut: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Sign in to Memo" });
    // "Owner password", or "Password" once people besides the owner exist (app/login/login-form.tsx).
    this.password = page.getByLabel(/^(Owner password|Password)\b/);
    this.submit = page.getByRole("button", { name: "Sign in" });
    this.error = page.getByRole("form", { name: "Sign in" }).getByRole("alert");
    this.status = page.getByRole("status");
    this.signOut = page
      .getByRole("navigation", { name: "Main" })
      .getByRole("button", { name: "Sign out", exact: true });
  }

  async goto(): Promise<void> {
    await this.page.goto("/login");
    await expect(this.heading).toBeVisible();
  }

  async signIn(password: string): Promise<void> {
    await this.password.fill(password);
    await this.submit.click();
  }
}
