import { test, expect } from "./memory-fixtures";

/** Settings: retrieval parameters saved per model and used by search; spaces created, renamed (memories move) and deleted (with confirmation). */

test.describe("Settings page", () => {
  test("retrieval settings are saved for the current model and used by search", async ({
    settings,
    request,
    page,
    api,
    space,
  }) => {
    const model = (await api.health()).embedder.model!;
    // 12 memories: with top N 9 and no quality filter, a search without k returns 9 of them.
    await api.addMemories(
      Array.from({ length: 12 }, (_, i) => ({
        text: `Settings test note ${i + 1}: the recipe needs ${i + 2} eggs`,
        space,
      })),
    );
    await settings.goto();
    await expect(settings.retrieval).toContainText(model);
    const topN = settings.retrievalForm.getByRole("spinbutton", { name: "Memories per reply (top N)" });
    const filter = settings.retrievalForm.getByRole("checkbox", { name: /Quality filter/ });
    const save = settings.retrievalForm.getByRole("button", { name: "Save retrieval settings" });
    const original = await topN.inputValue();
    const filterDefault = await filter.isChecked();
    try {
      await topN.fill("9");
      await filter.setChecked(false);
      await save.click();
      await expect(settings.retrievalSaved).toHaveText(`Saved for ${model}.`);
      const found = await api.search({ query: "recipe eggs", space });
      expect(found.results).toHaveLength(9);
      expect(found.dropped).toHaveLength(0);
      await page.reload();
      await expect(topN).toHaveValue("9");
      await expect(filter).not.toBeChecked();

      // Out of range: the browser refuses the form, and the server refuses the value too (400, nothing saved).
      await topN.fill("50");
      await save.click();
      expect(await topN.evaluate((el) => (el as HTMLInputElement).validity.valid)).toBe(false);
      const bad = await request.post("/api/trpc/retrievalSettings.save", { data: { topN: 50 } });
      expect(bad.status()).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^topN: /);
      await page.reload();
      await expect(topN).toHaveValue("9");
    } finally {
      await request.post("/api/trpc/retrievalSettings.reset", { data: {} });
    }
    await page.reload();
    await expect(topN).toHaveValue(original);
    await expect(filter).toBeChecked({ checked: filterDefault });
    await settings.retrievalForm.getByRole("button", { name: "Reset to model defaults" }).click();
    await expect(settings.retrievalSaved).toHaveText(`Saved for ${model}.`);
  });

  test("the live loop's settings (facts leg, profile, restated replies, date windows): defaults shown, saved, read back", async ({
    settings,
    request,
    page,
  }) => {
    await settings.goto();
    const loop = settings.retrievalForm.getByTestId("live-loop-settings");
    const field = (name: string) => loop.getByRole("spinbutton", { name });
    // The shipped defaults (server/memory/retrieval/settings.ts), each named in its hint.
    await expect(field("Facts: minimum confidence")).toHaveValue("0.5");
    await expect(field("Profile (tokens)")).toHaveValue("500");
    await expect(field("Restated replies' weight")).toHaveValue("0.3");
    await expect(field("Date window: largest share")).toHaveValue("0.5");
    await expect(loop).toContainText("default 500");
    await expect(settings.retrievalForm.getByTestId("retrieval-summary")).toContainText(
      "facts on their own evidence, a profile of 500 tokens",
    );
    await loop.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-results/screenshots/settings-live-loop-1280.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await loop.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-results/screenshots/settings-live-loop-390.png" });
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await field("Profile (tokens)").fill("0");
      await field("Facts: minimum confidence").fill("1");
      await settings.retrievalForm.getByRole("button", { name: "Save retrieval settings" }).click();
      await expect(settings.retrievalSaved).toHaveText(/^Saved for /);
      const got = (await (await request.get("/api/trpc/retrievalSettings.get")).json()) as {
        result: { data: { settings: { profileTokens: number; factMinConfidence: number; derivedWeight: number } } };
      };
      expect(got.result.data.settings).toMatchObject({ profileTokens: 0, factMinConfidence: 1, derivedWeight: 0.3 });
      await page.reload();
      await expect(field("Profile (tokens)")).toHaveValue("0");
      await expect(settings.retrievalForm.getByTestId("retrieval-summary")).not.toContainText("profile");
    } finally {
      await request.post("/api/trpc/retrievalSettings.reset", { data: {} });
    }
  });

  test("background jobs: the form shows the declared defaults, saves a change and reads it back", async ({
    settings,
    request,
    page,
  }) => {
    await settings.goto();
    const section = page.getByTestId("jobs-section");
    const form = section.getByRole("form", { name: "Background job settings" });
    const decay = form.getByRole("group", { name: "Decay" });
    const cons = form.getByRole("group", { name: "Consolidation" });
    // The defaults of server/jobs/schedule-fields.ts, each named in its hint.
    await expect(decay.getByRole("checkbox", { name: "Run daily" })).toBeChecked();
    await expect(decay.getByLabel("At")).toHaveValue("03:00");
    await expect(decay).toContainText("24-hour time; default 03:00");
    await expect(cons.getByRole("checkbox", { name: "Right after decay" })).toBeChecked();
    await expect(cons.getByLabel("At", { exact: true })).toBeDisabled();
    await expect(cons.getByRole("spinbutton", { name: "Memories compared per space" })).toHaveValue("200");
    await expect(cons).toContainText("The most recent ones; default 200");
    await expect(cons).toContainText("Or right after decay (default)");
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: "test-results/screenshots/settings-jobs-1280.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await section.screenshot({ path: "test-results/screenshots/settings-jobs-390.png" });
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await decay.getByLabel("At").fill("04:15");
      await cons.getByRole("checkbox", { name: "Right after decay" }).uncheck();
      await cons.getByLabel("At", { exact: true }).fill("05:45");
      await cons.getByRole("spinbutton", { name: "Memories compared per space" }).fill("150");
      await form.getByRole("button", { name: "Save job settings" }).click();
      await expect(section.getByTestId("jobs-saved")).toContainText("Saved. Next decay");
      const got = (await (await request.get("/api/trpc/jobs.settings")).json()) as {
        result: { data: { settings: { decay: { time: string }; consolidate: { time: string; maxPerSpace: number } } } };
      };
      expect(got.result.data.settings.decay.time).toBe("04:15");
      expect(got.result.data.settings.consolidate).toMatchObject({ time: "05:45", maxPerSpace: 150 });
      await page.reload();
      await expect(decay.getByLabel("At")).toHaveValue("04:15");
      await expect(cons.getByRole("checkbox", { name: "Right after decay" })).not.toBeChecked();
      await expect(cons.getByLabel("At", { exact: true })).toHaveValue("05:45");
      await expect(cons.getByRole("spinbutton", { name: "Memories compared per space" })).toHaveValue("150");
    } finally {
      await request.post("/api/trpc/jobs.saveSettings", {
        data: { decay: { time: "03:00" }, consolidate: { time: "after-decay", maxPerSpace: 200 } },
      });
    }
  });

  test("create, rename (memories move with it) and delete a space", async ({
    settings,
    api,
    space,
    page,
    consoleWatch,
  }) => {
    const renamed = `${space.slice(0, 56)}-moved`;
    await settings.goto();
    await settings.createSpace(space);
    await expect(settings.spaceRow(space)).toBeVisible();
    await api.addMemories([
      { text: "Space test: the garden shed code is 4812", space },
      { text: "Space test: water the tomatoes every evening", space },
    ]);
    await page.reload();
    await expect(settings.spaceRow(space).getByRole("cell").nth(1)).toHaveText("2");

    await settings.renameSpace(space, renamed);
    await expect(settings.spacesNotice).toHaveText(`Renamed ${space} to ${renamed}: 2 memories moved.`);
    await expect(settings.spaceRow(space)).toHaveCount(0);
    await expect(settings.spaceRow(renamed).getByRole("cell").nth(1)).toHaveText("2");
    const found = await api.search({ query: "garden shed code", space: renamed });
    expect(found.results[0]?.content).toBe("Space test: the garden shed code is 4812");
    consoleWatch.allow(/Failed to load resource: the server responded with a status of 404/);
    expect((await api.postRaw("/api/v1/search", { query: "garden shed code", space })).status()).toBe(404);

    // Renaming onto an existing space is refused.
    await settings.spaces.getByRole("button", { name: `Rename ${renamed}` }).click();
    await settings.spaces.getByRole("textbox", { name: `New name for ${renamed}` }).fill("personal");
    consoleWatch.allow(/Failed to load resource: the server responded with a status of 409/);
    await settings.spaces.getByRole("button", { name: "Save name" }).click();
    await expect(settings.spaces.getByRole("alert")).toHaveText("space 'personal' already exists; pick another name");
    await settings.spaces.getByRole("button", { name: "Cancel" }).click();

    const before = await api.counts();
    await settings.deleteSpace(renamed);
    await expect(settings.spacesNotice).toHaveText(`Deleted space ${renamed} and its 2 memories.`);
    await expect(settings.spaceRow(renamed)).toHaveCount(0);
    const after = await api.counts();
    expect(after.memories).toBe(before.memories - 2);
    expect(after.consistent).toBe(true);
    // The default space offers neither rename nor delete (it can be shared).
    await expect(settings.spaceRow("personal").getByRole("button", { name: /rename|delete/i })).toHaveCount(0);
    await expect(settings.spaceRow("personal").getByRole("button", { name: "Share personal" })).toHaveCount(1);
  });
});
