import { test, expect } from "./memory-fixtures";

/**
 * The memory techniques (server/memory/retrieval/techniques.ts) are settings a person can change: Debug Search
 * switches each for one search and shows that what it moved no longer moves; Settings → Retrieval saves
 * them per model, and searches (and Debug Search's starting state) follow.
 */

const ask = (verb: string) =>
  `User: How ${verb} I pack a suitcase efficiently?\nAssistant: Roll your clothes, put shoes at the bottom and fill the gaps with socks.`;
const TRIP =
  "User: What should I bring on a week-long walking trip?\nAssistant: Layers, a rain jacket and comfortable shoes.";
const SUITCASE_QUERY = "How do I pack a suitcase for a trip?";
// Two exchanges of one session, three days ago: the reply to the second names no tortoise.
const TORTOISE =
  "User: Our tortoise Shelly has stopped eating her dandelions.\nAssistant: Is her basking lamp still warm enough?";
const BULB = "User: The bulb had blown, I replaced it this morning.\nAssistant: Good, give her a day or two.";
const TORTOISE_QUERY = "What did I say about my tortoise a few days ago?";

type Moves = { results: { content: string; moves: string[] }[]; dense?: string[] };
const allMoves = (r: Moves) => r.results.flatMap((x) => x.moves);

test.describe("Memory techniques", () => {
  test.beforeEach(async ({ api, space }) => {
    const now = Date.now();
    const at = (daysAgo: number, min = 0) => new Date(now - daysAgo * 86_400_000 + min * 60_000).toISOString();
    await api.addMemories([
      { text: ask("do"), space, timestamp: at(40) },
      { text: ask("can"), space, timestamp: at(30) },
      { text: TRIP, space, timestamp: at(20) },
      { text: TORTOISE, space, timestamp: at(3) },
      { text: BULB, space, timestamp: at(3, 5) },
    ]);
  });

  test("Debug Search switches a technique for one search: what it moved stays put, and the threshold can be tried", async ({
    api,
    space,
    pipeline,
  }) => {
    await pipeline.goto();
    await pipeline.search(TORTOISE_QUERY, { space });
    await expect(pipeline.techniquesOff).toHaveText("all on");
    const moves = pipeline.results.getByTestId("moves");
    await expect(moves.filter({ hasText: "date ×" }).first()).toBeVisible();
    await expect(moves.filter({ hasText: "neighbour +" }).first()).toBeVisible();
    await pipeline.setTechnique("Date boost", false);
    await expect(moves.filter({ hasText: "date ×" })).toHaveCount(0);
    await expect(moves.filter({ hasText: "date: in" }).first()).toBeVisible();
    await expect(moves.filter({ hasText: "neighbour +" }).first()).toBeVisible();
    await pipeline.setTechnique("Neighbour context", false);
    await expect(moves.filter({ hasText: "neighbour +" })).toHaveCount(0);
    await expect(pipeline.techniquesOff).toHaveText("off: date boost, neighbour context");
    // The page's order is the API's with the same overrides.
    const off = (await api.search({
      query: TORTOISE_QUERY,
      space,
      options: { dateBoost: 0, neighbourWeight: 0 },
    })) as Moves;
    for (const [i, r] of off.results.entries()) await expect(pipeline.result(i)).toContainText(r.content);

    // The date words go to the date window, not to the dense leg.
    await expect(pipeline.denseTexts.first()).toHaveText("embedded as “What did I say about my tortoise?”");

    const n = await pipeline.resultCount();
    await pipeline.setMinConfidence(1);
    await expect(pipeline.wouldBePacked).toContainText(
      "Would be packed at minimum confidence 1.00: none — no memory used",
    );
    await pipeline.setMinConfidence(0);
    await expect(pipeline.wouldBePacked).toContainText(`Would be packed at minimum confidence 0.00: ${n} of ${n}`);
    await pipeline.page.screenshot({ path: "test-results/screenshots/memory-techniques-1280.png", fullPage: true });
    await pipeline.page.setViewportSize({ width: 390, height: 844 });
    await expect(pipeline.technique("Neighbour context")).toBeVisible();
    await pipeline.page.screenshot({ path: "test-results/screenshots/memory-techniques-390.png", fullPage: true });

    // For this search only: the saved settings are unchanged.
    const saved = (await api.search({ query: TORTOISE_QUERY, space })) as Moves;
    expect(allMoves(saved).some((m) => m.startsWith("neighbour +"))).toBe(true);
  });

  test("saved in Settings → Retrieval, a technique's value is what searches use and where Debug Search starts", async ({
    api,
    space,
    settings,
    pipeline,
    request,
  }) => {
    const model = (await api.health()).embedder.model!;
    await settings.goto();
    const neighbour = settings.technique("Neighbour context");
    await expect(neighbour).toHaveValue("0.3");
    await expect(settings.techniqueSettings).toContainText("default 0.3");
    const neighbourMoves = (r: Moves) => allMoves(r).some((m) => m.startsWith("neighbour +"));
    try {
      await neighbour.fill("0");
      await settings.saveRetrieval();
      await expect(settings.retrievalSaved).toHaveText(`Saved for ${model}.`);
      expect(neighbourMoves((await api.search({ query: TORTOISE_QUERY, space })) as Moves)).toBe(false);
      await settings.page.reload();
      await expect(neighbour).toHaveValue("0");
      await settings.techniqueSettings.screenshot({
        path: "test-results/screenshots/settings-techniques-1280.png",
      });

      // Out of range: the browser refuses the field, the server the value (400, nothing saved).
      await neighbour.fill("2");
      await settings.saveRetrieval();
      expect(await neighbour.evaluate((el) => (el as HTMLInputElement).validity.valid)).toBe(false);
      const bad = await request.post("/api/trpc/retrievalSettings.save", { data: { neighbourWeight: 2 } });
      expect(bad.status()).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^neighbourWeight: /);
      const badSearch = await request.post("/api/v1/search", {
        data: { query: SUITCASE_QUERY, space, options: { neighbourWeight: 2 } },
      });
      expect(badSearch.status()).toBe(400);

      await pipeline.goto();
      await pipeline.search(TORTOISE_QUERY, { space });
      await expect(pipeline.technique("Neighbour context")).not.toBeChecked();
      await expect(pipeline.techniquesOff).toHaveText("off: neighbour context");
      const moves = pipeline.results.getByTestId("moves").filter({ hasText: "neighbour +" });
      await expect(moves).toHaveCount(0);
      // On for this search, at the value measured for USE-lite.
      await pipeline.setTechnique("Neighbour context", true);
      await expect(pipeline.technique("Neighbour context 0.3")).toBeChecked();
      await expect(moves.first()).toBeVisible();
    } finally {
      await request.post("/api/trpc/retrievalSettings.reset", { data: {} });
    }
    await settings.goto();
    await expect(neighbour).toHaveValue("0.3");
  });
});
