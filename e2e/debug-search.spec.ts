import { test, expect } from "./fixtures";
import type { Route } from "@playwright/test";
import { expectNoHorizontalScroll } from "./support/layout";

/** Four memories: two about a dog (one shares words with the query, one only meaning), two unrelated. */
const DOG = "My dog Rex loves chasing tennis balls in the park every morning";
const PUPPY = "Our puppy enjoys fetching sticks by the river";
const TAX = "The quarterly tax report is due at the end of April";
const ESPRESSO = "I bought a new espresso machine for the kitchen";
const QUERY = "What does my dog like to play with?";

test.describe("Debug Search page", () => {
  test("ranks the related memory first with a hybrid badge", async ({ api, space, debugSearch, page }) => {
    await api.addMemories([DOG, PUPPY, TAX, ESPRESSO].map((text) => ({ text, space })));

    await debugSearch.goto();
    await debugSearch.search(QUERY, { space });

    await expect(debugSearch.error).toBeHidden();
    await expect(debugSearch.results.first()).toBeVisible();
    const types = await debugSearch.matchTypes();
    expect(types.length).toBeGreaterThan(0);
    for (const t of types) expect(["vector", "fts", "hybrid"]).toContain(t);
    expect(types).toContain("hybrid");

    // The memory that shares words and meaning with the query ranks first, matched by both legs.
    await expect(debugSearch.result(0)).toContainText(DOG);
    await expect(debugSearch.result(0).getByTestId("match-badge")).toHaveText("hybrid");
    // The line a chat prompt packs it as, with its writer: the person's own (no one else is named).
    const packed = debugSearch.result(0).getByTestId("packed-as");
    await expect(packed).toContainText("in a prompt: the user's own");
    await packed.locator("summary").click();
    await expect(packed.locator("pre")).toContainText(`: ${DOG}`);
    await page.screenshot({ path: "test-results/screenshots/debug-search-packed-as-1280.png" });
    // Unrelated memories never outrank a related one.
    const contents = await debugSearch.contents();
    const related = [contents.indexOf(DOG), contents.indexOf(PUPPY)].filter((i) => i >= 0);
    for (const unrelated of [TAX, ESPRESSO]) {
      const i = contents.indexOf(unrelated);
      if (i >= 0) expect(i, `"${unrelated}" ranks below the related memories`).toBeGreaterThan(Math.max(...related));
    }
    // Score bars and timings are shown for each result.
    for (const bar of ["similarity", "FTS rank", "RRF", "score"]) {
      await expect(debugSearch.result(0).getByRole("meter", { name: bar })).toBeVisible();
    }
    const scores = await debugSearch.results
      .getByRole("meter", { name: "score" })
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute("aria-valuenow"))));
    expect(scores, "results are shown in score order").toEqual([...scores].sort((a, b) => b - a));
    await expect(debugSearch.timings).toContainText(`${types.length} results`);
    // Every signal the stages recorded, by its declared label (server/memory/retrieval/signals.ts): a hybrid
    // match has both legs' signals, each with the part of the fused score it gave.
    const signals = debugSearch.result(0).getByTestId("signals");
    await signals.locator("summary").click();
    await expect(signals.locator('[data-signal="vector"]')).toContainText("vector");
    await expect(signals.locator('[data-signal="fts"]')).toContainText("keyword");
    await expect(signals.locator('[data-signal="confidence"]').first()).toContainText("confidence");

    await page.screenshot({ path: "test-results/debug-search.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page, "no horizontal scrolling on a phone-sized screen");
    await page.screenshot({ path: "test-results/debug-search-narrow.png", fullPage: true });
  });

  test("a search in a space that does not exist shows a readable error", async ({
    debugSearch,
    consoleWatch,
    page,
  }) => {
    const ghost = `ghost-${Date.now().toString(36)}`;
    // The space list is read when the page opens; a space that vanished since (another data folder, a stale
    // tab) is still offered. Simulate that by adding a space the store does not have to the list.
    await page.route("**/api/trpc/**", async (route: Route) => {
      const url = new URL(route.request().url());
      const procedures = url.pathname.replace(/^.*\/api\/trpc\//, "").split(",");
      const at = procedures.indexOf("memory.spaces");
      if (at < 0) return route.continue();
      const response = await route.fetch();
      const body = (await response.json()) as { result: { data: string[] } }[];
      body[at]!.result.data.push(ghost);
      await route.fulfill({ response, json: body });
    });
    // Chromium logs every failed HTTP request as a console error; the 404 is the expected answer here.
    consoleWatch.allow(/Failed to load resource: the server responded with a status of 404/);

    await debugSearch.goto();
    await debugSearch.search("anything at all", { space: ghost });

    await expect(debugSearch.error).toHaveText(`space '${ghost}' does not exist`);
    await expect(debugSearch.resultsSection).toBeHidden();
  });

  test("the embedder banner names the embedding model", async ({ api, debugSearch }) => {
    const health = await api.health();
    expect(health.embedder.status).toBe("ready");
    expect(health.embedder.model).toBeTruthy();

    await debugSearch.goto();
    await expect(debugSearch.banner).toBeVisible();
    await expect(debugSearch.banner).toContainText(`Embedding model: ${health.embedder.model}`);
    await expect(debugSearch.banner).toContainText(`(${health.embedder.dim}-d) — ready`);
  });

  test("turning the quality filter off shows more results or the same, never an error", async ({
    api,
    space,
    debugSearch,
  }) => {
    await api.addMemories([DOG, PUPPY, TAX, ESPRESSO].map((text) => ({ text, space })));
    // The USE-lite default has the filter off (the minimum confidence does its job): turn it on first.
    const viaApi = await api.search({ query: QUERY, space, options: { qualityFilter: true } });

    await debugSearch.goto();
    await debugSearch.search(QUERY, { space });
    if (!(await debugSearch.qualityFilter.isChecked())) await debugSearch.setQualityFilter(true);
    await expect(debugSearch.error).toBeHidden();
    const filtered = await debugSearch.resultCount();
    expect(filtered).toBe(viaApi.results.length);
    if (viaApi.dropped.length > 0) {
      await expect(
        debugSearch.page.getByText(`${viaApi.dropped.length} candidates dropped by the quality filter`),
      ).toBeVisible();
    }

    await debugSearch.setQualityFilter(false);
    await expect(debugSearch.error).toBeHidden();
    await expect(debugSearch.qualityFilter).not.toBeChecked();
    const unfiltered = await debugSearch.resultCount();
    expect(unfiltered).toBeGreaterThanOrEqual(filtered);
    expect(unfiltered).toBe(viaApi.results.length + viaApi.dropped.length);
    await expect(debugSearch.page.getByText(/candidates dropped by the quality filter/)).toBeHidden();

    await debugSearch.setQualityFilter(true);
    await expect(debugSearch.error).toBeHidden();
    expect(await debugSearch.resultCount()).toBe(filtered);
  });

  test("anchor query, k and conversation context work without errors", async ({ api, space, debugSearch }) => {
    await api.addMemories([DOG, PUPPY, TAX, ESPRESSO].map((text) => ({ text, space })));

    await debugSearch.goto();
    await debugSearch.search("what does he like to play with?", {
      space,
      k: 1,
      anchorQuery: true,
      context: ["Tell me about my dog Rex"],
      qualityFilter: false,
    });
    await expect(debugSearch.error).toBeHidden();
    await expect(debugSearch.results).toHaveCount(1);
    await expect(debugSearch.anchorQuery).toBeChecked();
  });

  test("a query nothing answers says no memory would be used, and the page logs no console errors", async ({
    debugSearch,
    consoleWatch,
    page,
  }) => {
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Debug Search" }).click();
    await expect(debugSearch.heading).toBeVisible();
    await expect(debugSearch.banner).toBeVisible();

    // A fresh data folder has the default space; search it for something no test stores there.
    await debugSearch.search("zyxwvut qqqq", { space: "personal" });
    await expect(debugSearch.error).toBeHidden();
    // The dense leg always has nearest neighbours when the space holds anything (other specs may store
    // there): none of them reaches the minimum confidence, so a chat turn would use no memory.
    await expect(
      debugSearch.noMatch.or(page.getByTestId("would-be-packed").filter({ hasText: "none — no memory used" })),
    ).toBeVisible();
    expect(consoleWatch.errors).toEqual([]);
  });
});
