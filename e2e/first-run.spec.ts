import { test, expect } from "./fixtures";

/**
 * A new person's first look: the model banner (on every page: which embedding model serves memory and
 * why) and the first-run checklist on the chat page, dismissible and shown again from Settings. The e2e
 * server runs with MEMO_OFFLINE=1, so the banner says the bundled model is in use and why.
 */
test.describe("First run", () => {
  test("the banner says which model is in use and why; the checklist can be dismissed and reopened from Settings", async ({
    page,
    consoleWatch,
  }) => {
    void consoleWatch;
    await page.goto("/");
    const banner = page.getByTestId("model-banner");
    await expect(banner).toBeVisible();
    await expect(banner).toContainText("Embedding model: the bundled offline model");
    await expect(banner).toContainText("MEMO_OFFLINE=1");
    await expect(banner).toHaveAttribute("data-phase", "skipped");

    const checklist = page.getByTestId("first-run-checklist");
    await expect(checklist.getByRole("heading", { name: "Getting started" })).toBeVisible();
    await expect(checklist.getByRole("listitem")).toHaveCount(4);
    await expect(checklist).toContainText("Embedding model: the bundled offline model");
    // The e2e provider is the OpenAI-compatible fixture, configured by environment.
    await expect(checklist).toContainText("Chat provider: OpenAI-compatible · fixture-echo (configured)");
    await checklist.getByRole("button", { name: "Test the chat provider" }).click();
    await expect(checklist.getByRole("status")).toContainText("OK: fixture-echo answered");
    // Every importer of another app's export, named from the import registry (formats.ts).
    await expect(checklist).toContainText("Import your ChatGPT or Claude history");
    await expect(checklist).toContainText("in Claude: Settings → Privacy → Export data");
    await expect(checklist).toContainText("npm run backup");

    // The banner is on every page, not only the chat page; the checklist only on the chat page.
    for (const path of ["/ingest", "/memory/search", "/memory/manager", "/memory/analytics", "/settings"]) {
      await page.goto(path);
      await expect(page.getByTestId("model-banner")).toContainText("the bundled offline model");
    }

    try {
      await page.goto("/");
      await checklist.getByRole("button", { name: "Dismiss" }).click();
      await expect(checklist).toBeHidden();
      await page.reload();
      await expect(page.getByTestId("model-banner")).toBeVisible();
      await expect(checklist).toBeHidden();

      await page.goto("/settings#models");
      const models = page.getByRole("region", { name: "Models" });
      await expect(models.getByTestId("embedding-model")).toContainText("universal-sentence-encoder-lite");
      await expect(models.getByTestId("detection-status")).toContainText("Off (MEMO_DETECT_LOCAL=0)");
      await expect(models.getByTestId("engines")).toContainText("Embedding:");
      await models.getByRole("button", { name: "Show the first-run checklist again" }).click();
      await expect(models.getByTestId("first-run-checklist")).toBeVisible();
    } finally {
      // Leave the store as a first run finds it, for the other specs.
      await page.request.post("/api/trpc/setup.setChecklistDismissed", {
        data: { dismissed: false },
        headers: { origin: new URL(page.url()).origin },
      });
    }
    await page.goto("/");
    await expect(checklist).toBeVisible();
  });
});
