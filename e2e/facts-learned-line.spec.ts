import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";

/**
 * The Facts line under a reply shows what was learned (issue 47): each fact, what it replaced, and an Undo
 * that takes that learning back — the replaced value is current again. Fact learning is answered by the
 * fixture facts model (a TEST DOUBLE scripted through POST /__fixture/facts).
 */
const fixture = `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/facts-learned-line-${name}.png` });
const token = () => Math.random().toString(36).slice(2, 8);

async function setScript(script: { when: string; facts: { text: string; replaces?: string[] }[] }[]): Promise<void> {
  const res = await fetch(`${fixture}/__fixture/facts`, { method: "POST", body: JSON.stringify(script) });
  expect(res.status).toBe(200);
}

test.afterAll(async () => setScript([]));

test("the Facts line lists the fact learned and what it replaced; Undo brings the replaced value back", async ({
  chat,
  space,
  page,
  request,
}) => {
  const code = token();
  const porto = `The user's sister Lena-${code} lives in Porto.`;
  const lisbon = `The user's sister Lena-${code} lives in Lisbon.`;
  await setScript([
    { when: `Lisbon-${code}`, facts: [{ text: lisbon, replaces: [`Lena-${code} lives in Porto`] }] },
    { when: `Lena-${code}`, facts: [{ text: porto }] },
  ]);
  await page.setViewportSize(DESKTOP);
  await chat.goto(space);
  const first = await chat.send(`My sister Lena-${code} lives in Porto.`);
  const firstFacts = first.getByTestId("learned-fact");
  await expect(firstFacts).toHaveCount(1, { timeout: 30_000 });
  await expect(firstFacts).toContainText(porto);
  await expect(first.getByTestId("learned-replaced")).toHaveCount(0);

  const second = await chat.send(`Lena-${code} moved to Lisbon-${code} last month.`);
  const fact = second.getByTestId("learned-fact");
  await expect(fact).toHaveCount(1, { timeout: 30_000 });
  await expect(fact).toContainText(lisbon);
  await expect(fact.getByTestId("learned-replaced")).toHaveText(`replaced “${porto}”`);
  await fact.scrollIntoViewIfNeeded();
  await shot(page, "1280");
  await page.setViewportSize(PHONE);
  await fact.scrollIntoViewIfNeeded();
  await shot(page, "390");
  // Reloaded, the earlier reply says its fact was replaced since, and offers no Undo for it.
  await page.reload();
  // In page order: the first reply's fact (Porto), then the second's (Lisbon, which names Porto as replaced).
  const portoFact = page.getByTestId("learned-fact").first();
  await expect(page.getByTestId("learned-fact")).toHaveCount(2, { timeout: 15_000 });
  await expect(portoFact).toContainText(`Learned: ${porto}`);
  await expect(portoFact).toContainText("(replaced since)");
  await expect(portoFact.getByTestId("learned-undo")).toHaveCount(0);
  const lisbonFact = page.getByTestId("learned-fact").nth(1);
  await expect(lisbonFact).toContainText(`Learned: ${lisbon}`);

  await lisbonFact.getByRole("button", { name: `Undo learning: ${lisbon}` }).click();
  await expect(page.getByTestId("learned-undone")).toHaveText(
    `Undone: “${lisbon}” is forgotten; “${porto}” is current again.`,
  );
  await expect(page.getByTestId("learned-fact")).toHaveCount(1);
  // The second reply's summary counts the learning taken back, now and after a reload.
  const secondSummary = page.getByTestId("learned-summary").nth(1);
  await expect(secondSummary).toContainText("learned 1 fact · 1 undone");
  await shot(page, "undone-390");
  const facts = (await (await request.get(`/api/v1/facts?space=${space}`)).json()) as { facts: { text: string }[] };
  const texts = facts.facts.map((f) => f.text);
  expect(texts).toContain(porto);
  expect(texts).not.toContain(lisbon);
  await page.reload();
  await expect(portoFact.getByTestId("learned-undo")).toHaveCount(1, { timeout: 15_000 });
  await expect(secondSummary).toContainText("learned 1 fact · 1 undone");
  await expect(page.getByTestId("learned-summary").first()).not.toContainText("undone");
});
