import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { test as base, expect } from "./fixtures";
import { AnalyticsPage } from "./pages/analytics.page";
import { ChatPage } from "./pages/chat.page";
import { KnowsPage } from "./pages/knows.page";
import { LoginPage } from "./pages/login.page";
import { ManagerPage } from "./pages/manager.page";
import { ChatApi } from "./support/chat-api";
import { LAN_PASSWORD, startLanServer, type LanServer } from "./support/lan-server";
import { expectNoHorizontalScroll } from "./support/layout";

/**
 * "What Memo knows" (issue 42 item 4, app/memory/knows/): facts added through POST /api/v1/facts are listed
 * by space with their dates and origin; search; an edit is a new version and the history shows the old value
 * with its dates; confirm; delete and its undo; the keyboard alone edits a fact; a source link opens the chat
 * message (or the document's passage) it came from; a person with no facts sees how facts are learned, and a
 * read-only sharee sees a shared space's facts marked as its owner's, without edit or delete. Screenshots at
 * 1280×800 and 390×844 in test-results/screenshots/facts-*.png.
 */
const test = base.extend<{ knows: KnowsPage }>({
  knows: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new KnowsPage(page));
  },
});
// Dates on the page are the browser's days in its locale: one zone and one locale, so "since Jun 15, 2024"
// reads the same everywhere.
test.use({ timezoneId: "UTC", locale: "en-US" });
const DAY = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
/** A day as the page shows it (app/_ui/local-time.ts). */
const day = (iso: string) => DAY.format(new Date(iso));

const BERLIN = "Lives in Berlin";
const LISBON = "Lives in Lisbon";
const NURSE = "Works as a nurse at St. Mary's hospital";
const MIDWIFE = "Works as a midwife at St. Mary's hospital";
const DOG = "Has a dog named Biscuit, who is four years old and afraid of the neighbour's cat";
const CELLO = "Plays the cello in an amateur orchestra on Thursdays";

interface ApiFact {
  id: string;
  text: string;
  validFrom: string;
  validTo: string | null;
  supersededBy: string | null;
  confirmedAt: string | null;
  origin: string;
}

async function addFacts(
  request: APIRequestContext,
  space: string,
  items: { text: string; sources: string[]; validFrom?: string; replaces?: string[] }[],
): Promise<string[]> {
  const res = await request.post("/api/v1/facts", { data: { space, items } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { ids: string[] }).ids;
}

async function factsOf(request: APIRequestContext, space: string, history = false): Promise<ApiFact[]> {
  const res = await request.get(`/api/v1/facts?space=${space}${history ? "&history=1" : ""}`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { facts: ApiFact[] }).facts;
}

/** The page at 1280×800 and 390×844 (no horizontal scroll on the phone), then the viewport as it was. */
async function shoot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize();
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    if (width === 390) await expectNoHorizontalScroll(page);
    await page.screenshot({ path: `test-results/screenshots/facts-${name}-${width}.png`, fullPage: true });
  }
  if (viewport) await page.setViewportSize(viewport);
}

/** A space with three current facts (one replacing an older value) and a second space with one. */
async function seed(api: import("./support/memo-api").MemoApi, request: APIRequestContext, space: string) {
  const [berlinM] = await api.addMemory({ text: "User: I live in Berlin.", space, timestamp: "2024-03-01T10:00:00Z" });
  const [lisbonM] = await api.addMemory({
    text: "User: we moved to Lisbon!",
    space,
    timestamp: "2024-06-15T10:00:00Z",
  });
  const [workM] = await api.addMemory({
    text: "User: I work as a nurse at St. Mary's hospital.",
    space,
    timestamp: "2024-02-10T10:00:00Z",
  });
  const [dogM] = await api.addMemory({
    text: "User: Biscuit, our dog, turned four; he hides from the neighbour's cat.",
    space,
    timestamp: "2023-11-05T10:00:00Z",
  });
  const [berlin] = await addFacts(request, space, [{ text: BERLIN, sources: [berlinM!] }]);
  const [lisbon] = await addFacts(request, space, [
    { text: LISBON, sources: [lisbonM!], validFrom: "2024-06-15", replaces: [berlin!] },
    { text: NURSE, sources: [workM!] },
    { text: DOG, sources: [dogM!] },
  ]);
  const other = `${space.slice(0, 58)}-music`;
  const [celloM] = await api.addMemory({
    text: "User: orchestra rehearsal again on Thursday, cello part.",
    space: other,
    timestamp: "2024-01-20T19:00:00Z",
  });
  await addFacts(request, other, [{ text: CELLO, sources: [celloM!] }]);
  return { berlin: berlin!, lisbon: lisbon!, other };
}

test.describe("What Memo knows", () => {
  test("facts by space with dates, search, edit with history, confirm, delete and undo", async ({
    api,
    request,
    space,
    knows,
    page,
  }) => {
    const { lisbon, other } = await seed(api, request, space);
    await knows.goto();
    knows.useSpace(space); // other tests' spaces may hold the same facts
    await expect(knows.space(space)).toBeVisible();
    expect(await knows.texts(space)).toEqual([LISBON, NURSE, DOG]);
    expect(await knows.texts(other)).toEqual([CELLO]);
    const lisbonItem = knows.fact(LISBON);
    await expect(lisbonItem.getByTestId("fact-since")).toHaveText(day("2024-06-15"));
    await expect(lisbonItem.getByTestId("fact-origin")).toHaveText("imported");
    await expect(lisbonItem.getByRole("button", { name: "Sources (1)" })).toBeVisible();
    await expect(knows.fact(BERLIN)).toHaveCount(0);
    await shoot(page, "list");

    // Search: by keyword, by a part of a word, and back to everything.
    await knows.find("hospital");
    expect(await knows.texts(space)).toEqual([NURSE]);
    await expect(knows.space(other)).toHaveCount(0);
    await knows.find("orchest");
    expect(await knows.texts(other)).toEqual([CELLO]);
    await knows.find("zzyzx-nothing");
    await expect(knows.none).toHaveText("No fact matches “zzyzx-nothing”.");
    await knows.find("");
    expect(await knows.texts(space)).toEqual([LISBON, NURSE, DOG]);

    // History: the replaced value with the dates it held.
    const versions = await knows.history(LISBON);
    await expect(versions).toHaveCount(1);
    await expect(versions.first()).toContainText(BERLIN);
    await expect(versions.first().getByTestId("fact-version-dates")).toContainText(
      `from ${day("2024-03-01")} until ${day("2024-06-15")}`,
    );
    await expect(lisbonItem.getByRole("button", { name: "Hide history" })).toHaveAttribute("aria-expanded", "true");
    await shoot(page, "history");
    await lisbonItem.getByRole("button", { name: "Hide history" }).click();

    // Edit: a new version; the old one is its history, with its dates.
    await knows.edit(NURSE, MIDWIFE);
    expect(await knows.texts(space)).toEqual([LISBON, MIDWIFE, DOG]);
    await expect(knows.fact(MIDWIFE).getByTestId("fact-origin")).toHaveText("written by you");
    await expect(knows.fact(MIDWIFE).getByTestId("fact-since")).toHaveText(day("2024-02-10"));
    const old = await knows.history(MIDWIFE);
    await expect(old).toHaveCount(1);
    await expect(old.first()).toContainText(NURSE);
    await expect(old.first().getByTestId("fact-version-dates")).toContainText(`since ${day("2024-02-10")} · corrected`);
    await expect(old.first().getByTestId("fact-version-dates")).toContainText("imported");
    const stored = await factsOf(request, space, true);
    const midwife = stored.find((f) => f.text === MIDWIFE)!;
    expect(stored.find((f) => f.text === NURSE)).toMatchObject({ supersededBy: midwife.id });
    expect(midwife).toMatchObject({ origin: "person", supersededBy: null });

    // Confirm.
    await knows.confirm(LISBON);
    expect((await factsOf(request, space)).find((f) => f.id === lisbon)?.confirmedAt).toMatch(/^\d{4}-/);
    await expect(lisbonItem.getByRole("button", { name: `Confirm: ${LISBON}` })).toHaveCount(0);

    // Delete: gone from the page and the API, its history too; Undo (focused) brings both back.
    await knows.delete(LISBON);
    await expect(knows.undoBar.getByRole("button", { name: "Undo" })).toBeFocused();
    await expect(knows.undoBar).toContainText(`Forgot “${LISBON}” and its history.`);
    expect(await knows.texts(space)).toEqual([MIDWIFE, DOG]);
    expect((await factsOf(request, space, true)).map((f) => f.text)).not.toContain(BERLIN);
    await knows.undo();
    expect(await knows.texts(space)).toEqual([LISBON, MIDWIFE, DOG]);
    expect((await factsOf(request, space, true)).map((f) => f.text)).toContain(BERLIN);
    await expect(knows.fact(LISBON).getByRole("button", { name: `Edit: ${LISBON}` })).toBeFocused();
  });

  test("the keyboard alone: Tab to Edit, Escape cancels, Enter saves a new version, the history opens", async ({
    api,
    request,
    space,
    knows,
    page,
  }) => {
    await seed(api, request, space);
    await knows.goto();
    // From the search box, Tab until the nurse fact's Edit button has the focus.
    await knows.search.focus();
    // (Other tests' spaces hold the same facts: this test's are found in its own space.)
    knows.useSpace(space);
    const mine = knows.space(space);
    const edit = knows.fact(NURSE, mine).getByRole("button", { name: `Edit: ${NURSE}` });
    for (let i = 0; i < 150 && !(await edit.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press("Tab");
    await expect(edit).toBeFocused();
    expect(await edit.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe("none");

    await page.keyboard.press("Enter");
    const box = page.getByRole("textbox", { name: "Fact" });
    await expect(box).toBeFocused();
    await page.keyboard.type(" (nights)");
    await page.keyboard.press("Escape");
    await expect(box).toHaveCount(0);
    await expect(edit).toBeFocused();
    expect(await knows.texts(space)).toContain(NURSE);

    await page.keyboard.press("Enter");
    await expect(box).toBeFocused();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type(MIDWIFE);
    await page.keyboard.press("Enter");
    await expect(knows.notice).toHaveText("Saved as a new version; the old value is in its history.");
    const newEdit = knows.fact(MIDWIFE, mine).getByRole("button", { name: `Edit: ${MIDWIFE}` });
    await expect(newEdit).toBeFocused();

    // On to "Show history" with Tab (past Confirm), Enter opens it.
    const show = knows.fact(MIDWIFE, mine).getByRole("button", { name: "Show history" });
    for (let i = 0; i < 5 && !(await show.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press("Tab");
    await expect(show).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(knows.fact(MIDWIFE, mine).getByTestId("fact-version")).toContainText(NURSE);
  });

  test("a source link opens the chat message the fact came from; a document's opens its passage", async ({
    request,
    space,
    knows,
    page,
  }) => {
    const chat = new ChatPage(page);
    const chatApi = new ChatApi(request);
    const tok = space.slice(-6);
    await chat.goto(space);
    await chat.send(`Our tortoise Quill ${tok} eats dandelions every morning.`);
    for (let i = 0; i < 3; i++) await chat.send(`Another message ${i} to push the first one up the page.`);
    const conversation = await chat.conversationId();
    const mem = await chatApi.waitForMemory(space, `tortoise Quill ${tok}`, `tortoise Quill ${tok}`);
    const TORTOISE = `Has a tortoise called Quill (${tok}) that eats dandelions`;
    await addFacts(request, space, [{ text: TORTOISE, sources: [mem.id] }]);

    // A document: its chunk as the source.
    const form = new FormData();
    form.append("space", space);
    form.append(
      "file",
      new Blob([Buffer.from(`# Garden\n\nThe greenhouse key hangs behind the shed door, ${tok}.`)], {
        type: "text/markdown",
      }),
      "garden-notes.md",
    );
    const up = await request.post("/api/v1/documents", { multipart: form });
    expect(up.status()).toBe(202);
    const docId = ((await up.json()) as { documents: { id: string }[] }).documents[0]!.id;
    await expect
      .poll(
        async () => ((await (await request.get(`/api/v1/documents/${docId}`)).json()) as { status: string }).status,
        {
          timeout: 60_000,
        },
      )
      .toBe("done");
    const chunk = (await chatApi.liveMemories(space)).find((m) => m.kind === "document")!;
    const KEY = `The greenhouse key (${tok}) hangs behind the shed door`;
    await addFacts(request, space, [{ text: KEY, sources: [chunk.id] }]);

    await knows.goto();
    const links = await knows.sources(TORTOISE);
    await expect(links).toHaveCount(1);
    await expect(links.first()).toHaveText("the chat message");
    const href = await links.first().getAttribute("href");
    expect(href).toMatch(new RegExp(`^/c/${conversation}#[0-9a-f-]{36}$`));
    await links.first().click();
    await expect(page).toHaveURL(new RegExp(`/c/${conversation}#`));
    const linked = page.locator('[data-anchored="true"]');
    await expect(linked).toHaveCount(1);
    await expect(linked).toHaveAttribute("data-testid", "assistant-message");
    await expect(linked).toHaveAttribute("id", href!.split("#")[1]!);
    await expect(linked).toBeFocused();
    await expect(linked).toBeInViewport();
    // The exchange it marks is the tortoise one: the user message just above it.
    const userAbove = page.locator(`[data-testid="user-message"]:has(+ [data-anchored="true"])`);
    await expect(userAbove).toContainText(`tortoise Quill ${tok}`);
    await page.screenshot({ path: "test-results/screenshots/facts-source-chat-1280.png" });

    await knows.goto();
    const docLinks = await knows.sources(KEY);
    await expect(docLinks.first()).toHaveText("garden-notes.md");
    await docLinks.first().click();
    const manager = new ManagerPage(page);
    await expect(manager.heading).toBeVisible();
    await manager.settled();
    await expect(manager.rows).toHaveCount(1);
    await expect(manager.rows.first().getByTestId("memory-sources")).toContainText("from garden-notes.md");
    await expect(manager.rows.first()).toContainText(`greenhouse key hangs behind the shed door, ${tok}`);
  });
});

test.describe("duplicate facts", () => {
  test("consolidation's preview lists duplicate facts; applied, the newer is the older's history; the run's undo splits them again", async ({
    api,
    request,
    space,
    knows,
    page,
  }) => {
    const tok = space.slice(-6);
    const OLDER = `Cycles to work along the river (${tok})`;
    const NEWER = `cycles to work along the river (${tok}).`;
    const [m1] = await api.addMemory({
      text: `User: I cycle to work along the river ${tok}.`,
      space,
      timestamp: "2024-01-05T08:00:00Z",
    });
    const [m2] = await api.addMemory({
      text: `User: the river path again today ${tok}`,
      space,
      timestamp: "2024-04-05T08:00:00Z",
    });
    await addFacts(request, space, [{ text: OLDER, sources: [m1!] }]);
    await addFacts(request, space, [{ text: NEWER, sources: [m2!] }]);

    const analytics = new AnalyticsPage(page);
    await analytics.goto();
    await page.getByTestId("run-consolidate").click();
    const preview = page.getByTestId("consolidation-preview");
    await expect(preview).toBeVisible({ timeout: 60_000 });
    const mine = preview.getByTestId("fact-proposal").filter({ hasText: tok });
    await expect(mine).toHaveCount(1);
    await expect(mine).toContainText(`Keep “${OLDER}” since ${day("2024-01-05")}`);
    await expect(mine).toContainText(`← merge “${NEWER}” (since ${day("2024-04-05")})`);
    // Only this test's pair: whatever else the store holds is left alone.
    for (const box of await preview.getByRole("checkbox").all()) await box.uncheck();
    await mine.getByRole("checkbox").check();
    await preview.scrollIntoViewIfNeeded();
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await preview.screenshot({ path: `test-results/screenshots/facts-consolidation-preview-${width}.png` });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await preview.getByRole("button", { name: "Apply 1 merge" }).click();
    await expect(page.getByTestId("job-result")).toContainText("1 duplicate fact merged");

    await knows.goto();
    knows.useSpace(space);
    expect(await knows.texts(space)).toEqual([OLDER]);
    await expect(knows.fact(OLDER).getByTestId("fact-since")).toHaveText(day("2024-01-05"));
    await expect(knows.fact(OLDER).getByRole("button", { name: "Sources (2)" })).toBeVisible();
    const versions = await knows.history(OLDER);
    await expect(versions).toHaveCount(1);
    await expect(versions.first()).toContainText(NEWER);
    await expect(versions.first().getByTestId("fact-version-dates")).toContainText(
      `since ${day("2024-04-05")} · merged into the fact above as a duplicate`,
    );
    await page.screenshot({ path: "test-results/screenshots/facts-merged-history-1280.png", fullPage: true });

    // Undo from the Analytics page's last runs: both facts current again, each with its own source.
    await analytics.goto();
    const run = page
      .getByTestId("jobs-panel-runs")
      .getByRole("listitem")
      .filter({ hasText: "1 duplicate fact merged" });
    await run.first().getByTestId("undo-run").click();
    await expect(run.first()).toContainText("undone");
    const after = await factsOf(request, space);
    expect(after.map((f) => f.text).sort()).toEqual([OLDER, NEWER].sort());
    expect(after.every((f) => f.supersededBy === null)).toBe(true);
  });
});

test.describe("What Memo knows in a household", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let lan: LanServer;
  test.beforeAll(async () => {
    lan = await startLanServer(5);
  });
  test.afterAll(async () => {
    await lan?.stop();
  });

  async function signedIn(browser: Browser, login: string, password: string): Promise<Page> {
    const context = await browser.newContext({
      baseURL: lan.url,
      extraHTTPHeaders: { origin: lan.url },
      timezoneId: "UTC",
    });
    const page = await context.newPage();
    const form = new LoginPage(page);
    await form.goto();
    if (login) await page.getByRole("textbox", { name: /^Sign-in name/ }).fill(login);
    await form.signIn(password);
    await expect(page).not.toHaveURL(/\/login/);
    return page;
  }

  test("a person with no facts is told how they are learned; a read-only sharee sees the owner's facts without edit or delete", async ({
    browser,
  }) => {
    const owner = await signedIn(browser, "", LAN_PASSWORD);
    const password = "rosa's own long password";
    const added = await owner.request.post("/api/v1/people", {
      data: { name: "Rosa", login: "rosa", password, role: "member" },
    });
    expect(added.status(), await added.text()).toBe(201);
    const kept = await owner.request.post("/api/v1/remember", {
      data: { text: "Grandma's lentil soup needs cumin and a bay leaf.", space: "recipes" },
    });
    expect(kept.status(), await kept.text()).toBe(201);
    const memoryId = ((await kept.json()) as { ids: string[] }).ids[0]!;
    await addFacts(owner.request, "recipes", [{ text: "Grandma's lentil soup needs cumin", sources: [memoryId] }]);

    // Rosa has no facts yet: the empty state, with the way to Settings.
    const rosa = await signedIn(browser, "rosa", password);
    const knows = new KnowsPage(rosa);
    await knows.goto();
    await expect(knows.empty).toBeVisible();
    await expect(knows.empty.getByRole("link", { name: "Settings → Learning facts" })).toHaveAttribute(
      "href",
      "/settings#learning",
    );
    await expect(knows.count).toHaveText("");
    await shoot(rosa, "empty");

    // Shared read-only: listed under the owner's name, readable (history, sources), not changeable.
    const share = await owner.request.post("/api/trpc/spaces.share", {
      data: JSON.stringify({ space: "recipes", person: "rosa", mode: "read" }),
      headers: { "content-type": "application/json" },
    });
    expect(share.status(), await share.text()).toBe(200);
    await knows.goto();
    const section = knows.space("recipes");
    await expect(section.getByTestId("fact-space-whose")).toHaveText("Owner’s · shared with you, read-only");
    const soup = knows.fact("Grandma's lentil soup needs cumin", section);
    await expect(soup).toBeVisible();
    await expect(knows.empty).toHaveCount(0);
    for (const name of [/^Edit/, /^Delete/, /^Confirm/])
      await expect(soup.getByRole("button", { name })).toHaveCount(0);
    await expect(await knows.history("Grandma's lentil soup needs cumin")).toHaveCount(0);
    await expect(soup.getByTestId("fact-history")).toContainText("None: this is the first value Memo knew.");
    await expect(await knows.sources("Grandma's lentil soup needs cumin")).toHaveCount(1);
    await shoot(rosa, "shared-read-only");

    // Shared read-write: Rosa may delete the owner's fact, but the trash is the owner's (issue 48): no Undo is
    // offered (it would answer 404), and the notice says who can bring it back.
    const rw = await owner.request.post("/api/trpc/spaces.share", {
      data: JSON.stringify({ space: "recipes", person: "rosa", mode: "write" }),
      headers: { "content-type": "application/json" },
    });
    expect(rw.status(), await rw.text()).toBe(200);
    await knows.goto();
    await knows
      .fact("Grandma's lentil soup needs cumin", knows.space("recipes"))
      .getByRole("button", { name: "Delete: Grandma's lentil soup needs cumin" })
      .click();
    // It asks whether to forget the message it came from too (issue 54): the fact only.
    await rosa.getByTestId("fact-delete-only").click();
    await expect(knows.notice).toContainText("Only Owner can bring it back.");
    await expect(knows.undoBar).toHaveCount(0);
    await knows.settled();
    await expect(knows.fact("Grandma's lentil soup needs cumin")).toHaveCount(0);
  });
});
