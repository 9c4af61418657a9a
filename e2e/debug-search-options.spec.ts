import { test, expect } from "./memory-fixtures";

/** Debug Search: each pipeline option changes what the search does, visibly. */

const DOG = "My dog Rex loves chasing tennis balls in the park every morning";
const PUPPY = "Our puppy enjoys fetching sticks by the river";
const TAX = "The quarterly tax report is due at the end of April";
const ESPRESSO = "I bought a new espresso machine for the kitchen";
const LONG_QUERY = "Tennis balls and sticks: what does my dog enjoy chasing outside in the park?";

test.describe("Debug Search options", () => {
  test.beforeEach(async ({ api, space }) => {
    await api.addMemories([DOG, PUPPY, TAX, ESPRESSO].map((text) => ({ text, space })));
  });

  test("candidate pool and k limit the candidates and the results", async ({ space, pipeline }) => {
    await pipeline.goto();
    await pipeline.search("dog tennis balls park", { space, k: 10, qualityFilter: false });
    await expect(pipeline.timings).toContainText("pool 100");
    const all = await pipeline.resultCount();
    expect(all).toBe(4); // filter off, pool 100: every memory of the space is a candidate

    await expect(pipeline.poolDiffers).toHaveCount(0);
    await pipeline.setPool(1);
    await expect(pipeline.timings).toContainText("pool 1");
    await expect(pipeline.poolDiffers).toContainText(
      "This search ranks with a pool of 1 per list; a chat turn uses 100",
    );
    await pipeline.page.screenshot({
      path: "test-results/screenshots/debug-search-pool-note-1280.png",
      fullPage: true,
    });
    await pipeline.page.setViewportSize({ width: 390, height: 844 });
    await expect(pipeline.poolDiffers).toBeVisible();
    await pipeline.page.screenshot({ path: "test-results/screenshots/debug-search-pool-note-390.png", fullPage: true });
    await pipeline.page.setViewportSize({ width: 1280, height: 800 });
    const few = await pipeline.resultCount();
    expect(few).toBeGreaterThanOrEqual(1);
    expect(few).toBeLessThanOrEqual(2); // one vector candidate and one keyword candidate at most
    await expect(pipeline.result(0)).toContainText(DOG);

    await pipeline.setPool(null);
    await expect(pipeline.timings).toContainText("pool 100");
    await pipeline.change(() => pipeline.kInput.fill("2"));
    await expect(pipeline.results).toHaveCount(2);
    // k = 2 ranks as deep as k = 10 (the chat's top 6 is Debug Search's): the same pool.
    await expect(pipeline.timings).toContainText("pool 100");
  });

  test("anchor query adds a second query for long messages", async ({ space, pipeline }) => {
    await pipeline.goto();
    await pipeline.search(LONG_QUERY, { space, anchorQuery: false });
    expect(await pipeline.queries()).toEqual([{ role: "main", text: LONG_QUERY }]);
    await pipeline.setAnchorQuery(true);
    expect(await pipeline.queries()).toEqual([
      { role: "main", text: LONG_QUERY },
      { role: "anchor", text: "Tennis balls and sticks: what" },
    ]);
    await expect(pipeline.queriesPanel).toContainText("anchor query");
    await expect(pipeline.queriesPanel).toContainText("on");
  });

  test("the pipeline panel shows what the dense leg embedded: the question without the date words", async ({
    space,
    pipeline,
    api,
  }) => {
    const query = "What did I buy for the kitchen last week?";
    const viaApi = (await api.search({ query, space })) as unknown as { dense?: string[] };
    const dense = viaApi.dense?.[0] ?? "";
    expect(dense).toContain("kitchen");
    expect(dense).not.toContain("last week");
    await pipeline.goto();
    await pipeline.search(query, { space });
    expect(await pipeline.queries()).toEqual([{ role: "main", text: query }]);
    await expect(pipeline.denseTexts).toHaveText([`embedded as “${dense}”`]);
    await expect(pipeline.results.filter({ hasText: ESPRESSO })).toHaveCount(1);
    // Rare words and no date: embedded as typed, nothing to show.
    await pipeline.search("espresso machine", { space });
    await expect(pipeline.denseTexts).toHaveCount(0);
  });

  test("conversation context lines join the query and change what is found", async ({ space, pipeline }) => {
    await pipeline.goto();
    await pipeline.search("what does he like to play with?", { space, context: ["Tell me about my dog Rex"] });
    await pipeline.setContextMessages(0);
    expect(await pipeline.queries()).toEqual([{ role: "main", text: "what does he like to play with?" }]);
    const without = await pipeline.contents();
    const withoutTypes = await pipeline.matchTypes();
    const dogWithout = without.indexOf(DOG);
    expect(
      dogWithout === -1 || withoutTypes[dogWithout] === "vector",
      "without context no keyword ties the question to Rex",
    ).toBe(true);

    await pipeline.setContextMessages(1);
    expect(await pipeline.queries()).toEqual([
      { role: "main", text: "Tell me about my dog Rex\nwhat does he like to play with?" },
    ]);
    await expect(pipeline.result(0)).toContainText(DOG);
    await expect(pipeline.result(0).getByTestId("match-badge")).toHaveText("hybrid");
  });

  test("quality filter and fusion method change the results and say so", async ({ space, pipeline, api }) => {
    // The USE-lite default has the filter off (the minimum confidence does its job): turn it on first.
    const viaApi = await api.search({ query: "espresso for the dog", space, options: { qualityFilter: true } });
    await pipeline.goto();
    await pipeline.search("espresso for the dog", { space });
    if (!(await pipeline.qualityFilter.isChecked())) await pipeline.setQualityFilter(true);
    expect(await pipeline.resultCount()).toBe(viaApi.results.length);
    if (viaApi.dropped.length) await expect(pipeline.droppedItems).toHaveCount(viaApi.dropped.length);
    await pipeline.setQualityFilter(false);
    expect(await pipeline.resultCount()).toBe(viaApi.results.length + viaApi.dropped.length);
    await expect(pipeline.dropped).toBeHidden();

    await pipeline.setFusion("rrf");
    await expect(pipeline.timings).toContainText("fusion rrf");
    const rrfScores = await pipeline.results
      .getByRole("meter", { name: "score" })
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute("aria-valuenow"))));
    await pipeline.setFusion("linear");
    await expect(pipeline.timings).toContainText("fusion linear");
    const linearScores = await pipeline.results
      .getByRole("meter", { name: "score" })
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute("aria-valuenow"))));
    expect(linearScores).not.toEqual(rrfScores);
    expect(linearScores).toEqual([...linearScores].sort((a, b) => b - a));
  });
});
