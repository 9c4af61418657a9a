import { test, expect } from "./fixtures";

/**
 * Debug Search shows each result's calibrated confidence and what moved it, and what a prompt would get
 * at the current minimum confidence (the same figures the API returns).
 */
// A subject no other spec stores: keyword statistics (df) are store-wide, and the e2e store holds every spec's
// memories, so a word common elsewhere (other specs store many dog facts) would be dropped from the dense query here.
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
  // Stored three days ago: "a few days ago" in the query names the window they are in.
  const at = new Date(Date.now() - 3 * 86_400_000).toISOString();
  await api.addMemories([DOG, CSS, TAX].map((text) => ({ text, space, timestamp: at })));
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

  // A coding question: the CSS exchange may come back as a result, but nothing would be packed.
  await debugSearch.search("How do I center a div with flexbox?", { space });
  await expect(debugSearch.page.getByTestId("would-be-packed")).toContainText("none — no memory used");
});
