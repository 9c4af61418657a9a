import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });

/**
 * Debug Search shows each result's calibrated confidence and what moved it, and what a prompt would get
 * at the current minimum confidence (the same figures the API returns).
 */
// A subject no other spec stores (keyword statistics are per space, but a distinct subject keeps this
// spec's ranking independent of what the fixture's space is shared with).
const DOG =
  "User: Our tortoise Shelly is a Hermann's tortoise and she loves eating dandelions.\nAssistant: Tortoises need calcium and a warm basking spot.";
const CSS =
  "User: How do I center text in a table cell?\nAssistant: Use text-align: center and vertical-align: middle on the cell.";
const TAX =
  "User: The quarterly tax report is due at the end of April.\nAssistant: Put a reminder in your calendar a week before.";

test("each result shows its confidence and what moved it; the would-be-packed line matches the threshold", async ({
  api,
  space,
  debugSearch,
}) => {
  // The tortoise stored three days ago: "a few days ago" in the query names the window it is in. The others
  // are older: a window holding most of a space is no signal (issue 47), so it must hold a minority here.
  const at = new Date(Date.now() - 3 * 86_400_000).toISOString();
  const older = new Date(Date.now() - 60 * 86_400_000).toISOString();
  await api.addMemories([
    { text: DOG, space, timestamp: at },
    ...[CSS, TAX].map((text) => ({ text, space, timestamp: older })),
  ]);
  const query = "What did I tell you about my tortoise a few days ago?";
  const viaApi = (await api.search({ query, space })) as unknown as {
    results: { content: string; scores: { confidence: number }; moves: string[] }[];
    minConfidence: number;
  };
  const packed = viaApi.results
    .map((r, i) => (r.scores.confidence >= viaApi.minConfidence ? i + 1 : 0))
    .filter(Boolean);
  expect(viaApi.results[0]!.content).toBe(DOG.replace("\n", " ")); // stored on one line
  expect(packed[0]).toBe(1);
  expect(viaApi.results[0]!.moves.some((m) => /^date ×/.test(m))).toBe(true);

  await debugSearch.goto();
  await debugSearch.search(query, { space });
  await expect(debugSearch.results).toHaveCount(viaApi.results.length);
  const first = debugSearch.result(0);
  await expect(first.getByTestId("confidence-value")).toHaveText(viaApi.results[0]!.scores.confidence.toFixed(2));
  await expect(first.getByTestId("moves")).toContainText("date ×");
  await expect(first.getByTestId("moves")).toContainText("confidence:");
  await expect(debugSearch.page.getByTestId("would-be-packed")).toContainText(
    `Would be packed at minimum confidence ${viaApi.minConfidence.toFixed(2)}: ${packed.length} of ${viaApi.results.length}`,
  );
  await expect(debugSearch.page.getByTestId("time-windows")).toContainText("a few days ago");

  // A question nothing stored speaks to: results come back, but nothing would be packed.
  await debugSearch.search("What is the capital of France?", { space });
  await expect(debugSearch.page.getByTestId("would-be-packed")).toContainText("none — no memory used");

  // What the confidence was made of: the result's own evidence (its words, its similarity), shown in its moves.
  await debugSearch.search("What does Shelly like eating?", { space });
  await expect(debugSearch.result(0).getByTestId("moves")).toContainText("confidence: termShare");
  await shot(debugSearch.page, "debug-search-sign-1280");
  await debugSearch.page.setViewportSize({ width: 390, height: 844 });
  await expect(debugSearch.result(0).getByTestId("moves")).toBeVisible();
  await shot(debugSearch.page, "debug-search-sign-390");
});

test.describe("in the browser's time zone", () => {
  test.use({ timezoneId: "America/Los_Angeles" });

  test("'yesterday' is the browser's yesterday, and result times are shown in its zone", async ({
    api,
    space,
    debugSearch,
  }) => {
    // 03:30 UTC on 10 March is 20:30 on 9 March in California (UTC-7 from 8 March 2026).
    await api.addMemories([
      {
        text: "User: Sketched the allotment layout: three raised beds and a compost corner.\nAssistant: Put the compost where the barrow can reach it.",
        space,
        timestamp: "2026-03-10T03:30:00.000Z",
      },
    ]);
    await debugSearch.goto();
    await debugSearch.search("What did I say about the allotment layout yesterday?", { space });
    const la = new Intl.DateTimeFormat("sv-SE", { timeZone: "America/Los_Angeles" });
    const yesterday = la.format(new Date(Date.now() - 86_400_000));
    await expect(debugSearch.page.getByTestId("time-windows")).toContainText(`“yesterday” ${yesterday}…${yesterday}`);
    const hit = debugSearch.page.getByTestId("result").filter({ hasText: "allotment layout" });
    await expect(hit.locator("time")).toHaveText("2026-03-09 20:30");
  });

  test("'As of' sets the turn's date: 'yesterday' is the day before it, in the browser's zone", async ({
    api,
    space,
    debugSearch,
  }) => {
    // 20:30 on 9 March in California; searched as of 09:00 local on 10 March. Two older memories: the window
    // must hold a minority of the space to count (issue 47).
    await api.addMemories([
      {
        text: "User: The greenhouse heater tripped the fuse again.\nAssistant: Put it on its own circuit.",
        space,
        timestamp: "2026-03-10T03:30:00.000Z",
      },
      {
        text: "User: The gutters need clearing.\nAssistant: Do it after the leaves fall.",
        space,
        timestamp: "2026-01-12T10:00:00.000Z",
      },
      {
        text: "User: Book the boiler service.\nAssistant: Autumn is the quiet season.",
        space,
        timestamp: "2026-01-20T10:00:00.000Z",
      },
    ]);
    await debugSearch.goto();
    await debugSearch.search("What did I say about the greenhouse heater yesterday?", {
      space,
      asOf: "2026-03-10T09:00",
    });
    await expect(debugSearch.page.getByTestId("time-windows")).toContainText("“yesterday” 2026-03-09…2026-03-09");
    const hit = debugSearch.page.getByTestId("result").filter({ hasText: "greenhouse heater" });
    await expect(hit.getByTestId("moves")).toContainText("date ×");
  });
});
