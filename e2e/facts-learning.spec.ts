import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";
import { IngestPage } from "./pages/ingest.page";
import { memoServer } from "./support/memo-server";

/**
 * Learning facts over the running app (docs/facts.md), with the fixture model: the OpenAI-compatible TEST
 * DOUBLE answers Memo's memo_facts requests from a script set through POST /__fixture/facts. A chat turn
 * teaches a fact, the reply says what the extraction sent where, Settings shows the switch and the calls;
 * and a Memo killed while a job is running learns it at its next start, once.
 */
const fixture = `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/facts-learning-${name}.png` });
const token = () => Math.random().toString(36).slice(2, 8);

type Script = { when: string; facts?: { text: string; replaces?: string[] }[]; bad?: string; times?: number }[];
async function setScript(script: Script): Promise<void> {
  const res = await fetch(`${fixture}/__fixture/facts`, { method: "POST", body: JSON.stringify(script) });
  expect(res.status).toBe(200);
}
/** The facts TEST DOUBLE's calls about `text`: this test's own, whatever else is learned meanwhile. */
const factCalls = async (text: string) =>
  (
    (await (await fetch(`${fixture}/__fixture/facts?containing=${encodeURIComponent(text)}`)).json()) as {
      calls: number;
    }
  ).calls;

test.afterAll(async () => setScript([]));

test("a chat turn teaches a fact: the reply says what the extraction sent where; Settings shows the switch and calls", async ({
  chat,
  space,
  page,
  request,
}) => {
  const code = token();
  await setScript([
    {
      when: `Lisbon-${code}`,
      facts: [{ text: `The user's sister Lena-${code} lives in Lisbon.`, replaces: [`Lena-${code} lives in Porto`] }],
    },
    // After the Lisbon entry: the fixture takes the first entry the user's words match.
    { when: `Lena-${code}`, facts: [{ text: `The user's sister Lena-${code} lives in Porto.` }] },
  ]);
  await page.setViewportSize(DESKTOP);
  await chat.goto(space);
  const reply = await chat.send(`My sister Lena-${code} lives in Porto.`);
  const line = reply.getByTestId("learned-line");
  await expect(line.getByTestId("learned-summary")).toContainText("learned 1 fact", { timeout: 30_000 });
  await expect(line.getByTestId("learned-summary")).toContainText(
    /sent to OpenAI-compatible \(127\.0\.0\.1:\d+\): this exchange \+ 0 known facts/,
  );
  await line.locator("summary").focus();
  await page.keyboard.press("Enter"); // keyboard opens the record
  await expect(line.getByTestId("learned-block")).toContainText("No facts are known yet");
  await shot(page, "reply-1280");

  // A changed value: the known fact is listed with its id, and replaced.
  const second = await chat.send(`Lena-${code} moved to Lisbon-${code} last month.`);
  await expect(second.getByTestId("learned-summary")).toContainText("1 known fact · learned 1 fact", {
    timeout: 30_000,
  });
  const facts = (await (await request.get(`/api/v1/facts?space=${space}&history=1`)).json()) as {
    facts: { text: string; supersededBy: string | null }[];
  };
  expect(facts.facts.map((f) => [f.text, f.supersededBy === null])).toEqual(
    expect.arrayContaining([
      [`The user's sister Lena-${code} lives in Lisbon.`, true],
      [`The user's sister Lena-${code} lives in Porto.`, false],
    ]),
  );
  await page.setViewportSize(PHONE);
  await second.getByTestId("learned-line").locator("summary").click();
  await expect(second.getByTestId("learned-block")).toContainText(`Lena-${code} lives in Porto.`);
  await shot(page, "reply-390");

  for (const [name, viewport] of [
    ["1280", DESKTOP],
    ["390", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.goto("/settings");
    const section = page.getByTestId("learning-section");
    await section.scrollIntoViewIfNeeded();
    await expect(section.getByTestId("learning-row").first()).toHaveAttribute("data-on", "true");
    await expect(section.getByTestId("learning-calls").first()).toContainText(/\d+ calls? made/);
    await section.getByLabel("in space").selectOption(space);
    const learn = section.getByRole("button", { name: `Learn facts from your memory in ${space}` });
    await learn.focus();
    await page.keyboard.press("Enter");
    // Both exchanges were learned from already: nothing to count, nothing sent.
    await expect(section.getByTestId("learn-count")).toContainText("Nothing new to learn from");
    await shot(page, `settings-${name}`);
  }
});

test("a chat deleted while its reply is still learning: no poll asks for the reply once it is gone", async ({
  chat,
  space,
  page,
}) => {
  const code = token();
  // The extraction keeps failing (retried with back-off), so the reply's learning line keeps polling.
  await setScript([{ when: `beehive-${code}`, bad: "status_500", times: 1000 }]);
  await chat.goto(space);
  await chat.send(`I keep a beehive-${code} on the roof.`);
  await expect(page.getByTestId("learned-line")).toBeVisible();
  const gone: string[] = [];
  page.on("response", (r) => {
    if (r.url().includes("learning.reply") && r.status() === 404) gone.push(r.url());
  });
  // The delete is done on the server at once; its answer reaches the page 4 s later (polls come every 1.5 s).
  await page.route("**/api/trpc/conversations.delete**", async (route) => {
    const response = await route.fetch();
    await new Promise((r) => setTimeout(r, 4_000));
    await route.fulfill({ response });
  });
  await chat.deleteWith(/beehive/, true);
  await expect(chat.deletedNotice).toBeVisible();
  await page.unroute("**/api/trpc/conversations.delete**");
  expect(gone, "a learning poll found the deleted reply gone (404)").toEqual([]);
});

test("a document: opt-in — the calls counted before it starts, then progress, then what was learned", async ({
  page,
  space,
}) => {
  const code = token();
  await setScript([{ when: `heron-${code}`, facts: [{ text: `The user's garden pond has a heron-${code}.` }] }]);
  const ingest = new IngestPage(page);
  await page.setViewportSize(DESKTOP);
  await ingest.goto();
  await ingest.setSpace(space);
  const name = `pond-${code}.md`;
  await ingest.upload([
    {
      name,
      mimeType: "text/markdown",
      buffer: Buffer.from(`# Pond\n\nA heron-${code} visits my garden pond every morning.\n`),
    },
  ]);
  await expect(ingest.status(name)).toHaveText("done", { timeout: 60_000 });
  const before = await factCalls(`heron-${code}`);
  const row = ingest.row(name);
  await row.getByRole("button", { name: `Learn facts from ${name}` }).click();
  await expect(row.getByTestId("learn-count")).toContainText(
    /1 memory → 1 call to OpenAI-compatible .*stays on this machine/,
  );
  expect(await factCalls(`heron-${code}`)).toBe(before); // counting sends nothing
  await shot(page, "document-count-1280");
  await row.getByRole("button", { name: `Start learning facts from ${name}` }).click();
  // A document's fact is proposed, not known at once (issue 54): it waits on What Memo knows.
  await expect(row.getByTestId("learn-last")).toContainText(
    "Learned: 0 facts from 1 of 1 memory · 1 change to confirm on What Memo knows",
    { timeout: 30_000 },
  );
  expect(await factCalls(`heron-${code}`)).toBe(before + 1);
  await page.setViewportSize(PHONE);
  await shot(page, "document-learned-390");
});

test("a document that would replace a fact: proposed on What Memo knows, not applied; accepted; the run undone as a whole", async ({
  page,
  space,
  api,
  request,
}) => {
  const code = token();
  const dentist = `The user's dentist is Dr. Ortiz-${code}.`;
  const injected = `The user has no dentist-${code}.`;
  // The fixture (TEST DOUBLE) answers the document as a model that obeyed it would: replacing the fact.
  await setScript([{ when: `clinic-${code}`, facts: [{ text: injected, replaces: [`Dr. Ortiz-${code}`] }] }]);
  const [said] = await api.addMemory({ text: `User: my dentist is Dr. Ortiz-${code}.`, space });
  const added = await request.post("/api/v1/facts", { data: { space, items: [{ text: dentist, sources: [said] }] } });
  expect(added.status()).toBe(201);
  const ingest = new IngestPage(page);
  await page.setViewportSize(DESKTOP);
  await ingest.goto();
  await ingest.setSpace(space);
  const name = `clinic-${code}.md`;
  await ingest.upload([
    {
      name,
      mimeType: "text/markdown",
      buffer: Buffer.from(
        `# Clinic\n\nclinic-${code}: the dentist Dr. Ortiz-${code} is no longer the user's dentist.\n`,
      ),
    },
  ]);
  await expect(ingest.status(name)).toHaveText("done", { timeout: 60_000 });
  const row = ingest.row(name);
  await row.getByRole("button", { name: `Learn facts from ${name}` }).click();
  await row.getByRole("button", { name: `Start learning facts from ${name}` }).click();
  await expect(row.getByTestId("learn-last")).toContainText("1 change to confirm on What Memo knows", {
    timeout: 30_000,
  });
  await shot(page, "document-proposed-1280");
  const current = async () =>
    ((await (await request.get(`/api/v1/facts?space=${space}`)).json()) as { facts: { text: string }[] }).facts.map(
      (f) => f.text,
    );
  expect(await current()).toEqual([dentist]); // nothing replaced by the document

  await page.goto("/memory/knows");
  const proposal = page.getByTestId("fact-proposal").filter({ hasText: injected });
  await expect(proposal).toContainText(`would replace “${dentist}” · from ${name}`);
  await proposal.scrollIntoViewIfNeeded();
  await shot(page, "knows-proposal-1280");
  await page.setViewportSize(PHONE);
  await shot(page, "knows-proposal-390");
  await proposal.getByRole("button", { name: `Accept: ${injected}` }).click();
  await expect(page.getByTestId("facts-notice")).toContainText("Accepted");
  expect(await current()).toEqual([injected]);

  await page.setViewportSize(DESKTOP);
  await ingest.goto();
  await ingest.setSpace(space);
  await ingest
    .row(name)
    .getByRole("button", { name: `Undo what learning from ${name} changed` })
    .click();
  await expect(ingest.row(name).getByTestId("learn-undone")).toContainText("Undone: 1 fact taken back, 1 brought back");
  await shot(page, "document-undone-1280");
  expect(await current()).toEqual([dentist]);
});

test("a Memo killed while learning: the job resumes at the next start and the fact is learned once", async () => {
  test.setTimeout(240_000);
  const code = token();
  const own = memoServer();
  try {
    await own.start();
    // The first extraction never gets an answer (the process dies waiting); the one after the restart does.
    await setScript([
      { when: `kayak-${code}`, bad: "hang", times: 1, facts: [{ text: `The user owns a kayak named ${code}.` }] },
    ]);
    const before = await factCalls(`kayak-${code}`);
    const res = await fetch(`${own.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: own.url },
      body: JSON.stringify({ message: `I bought a kayak-${code} and named it ${code}.`, space: "personal" }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"done"');
    await expect.poll(() => factCalls(`kayak-${code}`), { timeout: 30_000 }).toBe(before + 1); // the job is running, its call unanswered
    await own.kill();
    await own.start();
    const learned = async () =>
      (
        (await (await fetch(`${own.url}/api/v1/facts?space=personal`)).json()) as { facts: { text: string }[] }
      ).facts.map((f) => f.text);
    await expect.poll(learned, { timeout: 60_000 }).toEqual([`The user owns a kayak named ${code}.`]);
    expect(await factCalls(`kayak-${code}`)).toBe(before + 2);
    const health = (await (await fetch(`${own.url}/api/health`)).json()) as {
      ok: boolean;
      facts: { done: number; running: number; queued: number };
    };
    expect(health.ok).toBe(true);
    expect(health.facts).toMatchObject({ done: 1, running: 0, queued: 0 });
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : e}\n--- own Memo's log:\n${own.log().slice(-3000)}`);
  } finally {
    await own.stop();
  }
});
