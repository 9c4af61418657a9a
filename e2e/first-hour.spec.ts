import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";
import { IngestPage } from "./pages/ingest.page";
import { KnowsPage } from "./pages/knows.page";
import { SettingsPage } from "./pages/settings.page";
import { englishText } from "../server/test/english-text";

/**
 * The first hour, tried as a new user would (issue 50): what the pages show is what Memo holds. A forgotten
 * document says so on its row and comes back on Restore or a re-upload; the chat without a model shows one
 * short "Connect a model" card; Settings has a section menu; the chat's options fold on a phone; and the
 * smaller things (a delete confirmation in view, one date format, failed uploads not counted as documents,
 * the Memory group label, one notice per fact delete). Screenshots: test-results/screenshots/first-hour-*.png.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SIZES = [
  ["1280", DESKTOP],
  ["390", PHONE],
] as const;
test.use({ viewport: DESKTOP });

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/first-hour-${name}.png`, fullPage: false });

const WIFI = "The guest wifi password is heron-lantern-42, printed under the router.\n";

async function uploadText(page: Page, space: string, name: string, text: string): Promise<string> {
  const form = new FormData();
  form.append("space", space);
  form.append("file", new Blob([Buffer.from(text)], { type: "text/plain" }), name);
  const res = await page.request.post("/api/v1/documents", { multipart: form });
  expect(res.status()).toBe(202);
  const id = ((await res.json()) as { documents: { id: string }[] }).documents[0]!.id;
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/documents/${id}`)).json()) as { status: string }).status)
    .toMatch(/^(done|failed)$/);
  return id;
}

/** The format every page uses for a date and time: the person's locale (the browser's), by Intl. */
const personDateTime = (page: Page, iso: string) =>
  page.evaluate(
    (s) => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(s)),
    iso,
  );

test.describe("A forgotten document", () => {
  test("its row says what of it is live, with Restore; uploading it again restores it and says so", async ({
    page,
    api,
    space,
    consoleWatch,
  }) => {
    void consoleWatch;
    const id = await uploadText(page, space, "wifi.txt", WIFI);
    const forgotten = await api.forget("heron-lantern", space);
    expect(forgotten.count).toBe(1);

    const ingest = new IngestPage(page);
    await ingest.goto();
    await ingest.setSpace(space);
    const row = ingest.row("wifi.txt");
    await expect(ingest.liveness("wifi.txt")).toContainText("0 of 1 passages live — forgotten on ");
    const doc = (await (await page.request.get(`/api/v1/documents/${id}`)).json()) as { forgottenAt: string };
    await expect(ingest.liveness("wifi.txt")).toHaveText(
      `0 of 1 passages live — forgotten on ${await personDateTime(page, doc.forgottenAt)}`,
    );
    await expect(ingest.status("wifi.txt")).toHaveText("forgotten");
    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      await expect(row.getByRole("button", { name: "Restore wifi.txt" })).toBeInViewport();
      await shot(page, `ingest-forgotten-${size}`);
    }
    await page.setViewportSize(DESKTOP);

    await row.getByRole("button", { name: "Restore wifi.txt" }).click();
    await expect(ingest.liveness("wifi.txt")).toHaveCount(0);
    await expect(ingest.status("wifi.txt")).toHaveText("done");
    expect((await api.search({ query: "guest wifi password", space })).results.map((r) => r.content)).toContain(
      WIFI.trim(),
    );

    // Forgotten again, then the same file dropped on the page: it comes back, and the page says so.
    await api.forget("heron-lantern", space);
    await page.reload();
    await ingest.setSpace(space);
    await expect(ingest.liveness("wifi.txt")).toContainText("0 of 1 passages live");
    await ingest.upload([{ name: "wifi.txt", mimeType: "text/plain", buffer: Buffer.from(WIFI) }]);
    await expect(ingest.notice).toHaveText(
      `wifi.txt had been forgotten; uploading it again restored its 1 passage in '${space}'.`,
    );
    await expect(ingest.liveness("wifi.txt")).toHaveCount(0);
    await expect(ingest.documents).toHaveCount(1);
    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      await shot(page, `ingest-restored-${size}`);
    }
  });
});

test.describe("First run without a model", () => {
  test.afterEach(async ({ chatApi }) => void (await chatApi.resetProviders()));

  test("one short 'Connect a model' card with the details folded; a message sent says it is kept but not memory", async ({
    page,
    chat,
    chatApi,
    space,
  }) => {
    await chatApi.saveProviders({ active: null });
    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      await chat.goto(space);
      const card = chat.connectModel;
      await expect(card.getByRole("heading", { name: "Connect a model" })).toBeVisible();
      await expect(card.getByRole("link", { name: "Settings → Providers" })).toHaveAttribute(
        "href",
        "/settings#providers",
      );
      // The environment variables are said once on the page, folded until asked for.
      await expect(page.getByText(/MEMO_PROVIDER=openai/)).toHaveCount(1);
      await expect(page.getByText(/MEMO_PROVIDER=openai/)).toBeHidden();
      // The checklist's item points at the card instead of repeating it.
      await expect(page.getByTestId("first-run-checklist").getByText(/models:pull -- --chat/)).toHaveCount(0);
      // Nothing covers the empty chat's hint.
      await expect(chat.emptyHint).toBeInViewport({ ratio: 1 });
      await shot(page, `no-model-${size}`);
      await card.getByText("Other ways to connect one").click();
      await expect(page.getByText(/MEMO_PROVIDER=openai/)).toBeVisible();
    }

    await page.setViewportSize(DESKTOP);
    await chat.goto(space);
    const question = `Where is the spare key ${Date.now().toString(36)}?`;
    const reply = await chat.send(question);
    await expect(chat.replyError(reply)).toHaveText(
      "No model is connected, so nothing answered. Your message is kept in this conversation but not in memory: an exchange becomes memory once a model answers it. Connect a model, then Retry.",
    );
    await expect(chat.replyError(reply)).not.toContainText("MEMO_PROVIDER");
    await shot(page, "no-model-sent-1280");
    // What the note says is what is kept: the message is in the conversation after a reload, and not in memory.
    const id = await chat.conversationId();
    await chat.gotoConversation(id);
    await expect(page.getByTestId("user-message").filter({ hasText: question })).toHaveCount(1);
    expect((await chatApi.liveMemories(space)).filter((m) => m.content.includes(question))).toEqual([]);
    await page.setViewportSize(PHONE);
    await shot(page, "no-model-sent-390");
  });
});

test.describe("Settings", () => {
  test("every section has an anchor and a menu: a side list on a desktop, a select on a phone", async ({
    page,
    consoleWatch,
  }) => {
    void consoleWatch;
    const settings = new SettingsPage(page);
    await page.goto("/settings#spaces");
    await expect(settings.spaces).toBeInViewport();
    const menu = settings.sectionMenu;
    await expect(menu).toBeVisible();
    const names = await menu.getByRole("link").allTextContents();
    for (const want of ["Providers", "Learning facts", "Models", "Retrieval", "Spaces", "Access"])
      expect(names).toContain(want);
    for (const a of await menu.getByRole("link").all()) {
      const target = (await a.getAttribute("href"))!;
      expect(target).toMatch(/^#[a-z-]+$/);
      await expect(page.locator(`section${target}`)).toHaveCount(1);
    }
    await menu.getByRole("link", { name: "Access" }).click();
    await expect(page).toHaveURL(/#access$/);
    await expect(page.locator("section#access")).toBeInViewport();
    await expect(menu.getByRole("link", { name: "Access" })).toHaveAttribute("aria-current", "true");
    await shot(page, "settings-1280");

    await page.setViewportSize(PHONE);
    await page.goto("/settings");
    await expect(settings.sectionMenu).toBeHidden();
    await settings.sectionSelect.selectOption({ label: "Retrieval" });
    await expect(page).toHaveURL(/#retrieval$/);
    await expect(page.locator("section#retrieval")).toBeInViewport();
    await shot(page, "settings-390");
  });
});

test.describe("The chat on a phone", () => {
  test.use({ viewport: PHONE });
  test.beforeEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(true)));
  test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

  test("the chat's options fold behind one control; recalled memories are full width under the reply", async ({
    page,
    chat,
    api,
    space,
  }) => {
    const code = Date.now().toString(36);
    await api.addMemory({ text: `My sister Anna's cat is called Biscuit-${code}.`, space });
    await chat.goto(space);
    await expect(chat.spaceSelect).toBeHidden();
    await expect(chat.providerSelect).toBeHidden();
    await expect(page.getByTestId("temporary-toggle")).toBeHidden();
    const header = await page.getByTestId("chat-toolbar").boundingBox();
    expect(header!.height, "the chat's header on a phone").toBeLessThanOrEqual(56);
    await chat.optionsButton.click();
    await expect(chat.spaceSelect).toBeVisible();
    await expect(chat.providerSelect).toBeVisible();
    await expect(page.getByTestId("temporary-toggle")).toBeVisible();
    await shot(page, "chat-options-390");
    await chat.optionsButton.click();
    await expect(chat.spaceSelect).toBeHidden();

    const reply = await chat.send("What is the name of my sister Anna's cat?");
    const recalled = await chat.openRecalled(reply);
    const card = (await recalled.getByTestId("recalled-memory").first().boundingBox())!;
    const bubble = (await reply.boundingBox())!;
    expect(card.width, "a recalled memory's card spans the reply's width").toBeGreaterThan(bubble.width * 0.85);
    await shot(page, "chat-recalled-390");
    await page.setViewportSize(DESKTOP);
    await expect(chat.spaceSelect).toBeVisible();
    await shot(page, "chat-recalled-1280");
  });
});

test.describe("Smaller things", () => {
  test("a delete confirmation lower in the list is scrolled into view", async ({ page, chat, space }) => {
    test.setTimeout(120_000);
    for (let i = 0; i < 24; i++) {
      const res = await page.request.post("/api/chat", { data: { message: `/remember list filler ${i}`, space } });
      expect(res.ok()).toBe(true);
    }
    await chat.goto(space);
    const nav = await chat.conversationNav();
    const last = chat.conversationItems.last();
    await expect(chat.conversationItems).not.toHaveCount(0);
    await last.scrollIntoViewIfNeeded();
    await last.getByRole("button", { name: /^Delete / }).click();
    const dialog = chat.deleteDialog(last);
    await expect(dialog.getByRole("button", { name: "Yes, delete" })).toBeInViewport({ ratio: 1 });
    void nav;
    await shot(page, "delete-chat-1280");
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });

  test("one date format on Ingest, Manager and Analytics: the person's locale", async ({ page, api, space }) => {
    await uploadText(page, space, "dates.txt", "The boiler was serviced by Corbin Heating.\n");
    await api.addMemory({ text: "Dated note for the format check.", space });
    const ingest = new IngestPage(page);
    await ingest.goto();
    await ingest.setSpace(space);
    const added = (await ingest.row("dates.txt").locator("time").getAttribute("datetime"))!;
    await expect(ingest.row("dates.txt").locator("time")).toHaveText(await personDateTime(page, added));

    await page.goto(`/memory/manager?space=${space}`);
    const mrow = page.getByTestId("memory-row").filter({ hasText: "Dated note for the format check." });
    const mtime = mrow.locator("time").first();
    await expect(mtime).toHaveText(await personDateTime(page, (await mtime.getAttribute("datetime"))!));

    await page.goto(`/memory/analytics?space=${space}`);
    const next = page.getByTestId("next-decay");
    await expect(next).toHaveAttribute("datetime", /\d{4}-/);
    await expect(next).toHaveText(await personDateTime(page, (await next.getAttribute("datetime"))!));
  });

  test("the Spaces table does not count failed uploads as documents", async ({ page, space }) => {
    await uploadText(page, space, "kept.txt", "A kept note about the allotment shed.\n");
    await uploadText(page, space, "empty.txt", "");
    const settings = new SettingsPage(page);
    await page.goto("/settings#spaces");
    const row = settings.spaceRow(space);
    // Columns: name, memories, deleted, conversations, documents.
    await expect(row.locator("td").nth(4)).toHaveText("1");
  });

  test("the Memory label in the navigation reads as a group's name, not a link", async ({ page, consoleWatch }) => {
    void consoleWatch;
    await page.goto("/memory/manager");
    const group = page.getByRole("navigation").first().getByRole("group", { name: "Memory" });
    await expect(group).toBeVisible();
    await expect(group.getByRole("link")).toHaveCount(4);
    const look = await group.evaluate((g) => {
      const label = g.querySelector("[data-testid=nav-group-label]") as HTMLElement;
      const link = g.querySelector("a") as HTMLElement;
      const s = getComputedStyle(g);
      return {
        bordered: s.borderTopWidth !== "0px" || s.backgroundColor !== "rgba(0, 0, 0, 0)",
        labelSize: Number.parseFloat(getComputedStyle(label).fontSize),
        linkSize: Number.parseFloat(getComputedStyle(link).fontSize),
        labelInside: g.contains(label),
      };
    });
    expect(look.labelInside).toBe(true);
    expect(look.bordered, "the group is drawn around its links").toBe(true);
    expect(look.labelSize).toBeLessThan(look.linkSize);
    await shot(page, "nav-1280");
  });

  test("deleting a fact shows one notice, not two", async ({ page, api, space }) => {
    const [source] = await api.addMemory({ text: "User: I keep bees on the allotment.", space });
    const res = await page.request.post("/api/v1/facts", {
      data: { space, items: [{ text: `Keeps bees ${space}`, sources: [source] }] },
    });
    expect(res.status()).toBe(201);
    const knows = new KnowsPage(page);
    await knows.goto();
    await knows.delete(`Keeps bees ${space}`);
    await expect(knows.undoBar).toContainText("Forgot");
    await expect(knows.notice).toHaveText("");
    await shot(page, "fact-deleted-1280");
  });

  test("a big file's row shows a percentage and time left from the start, never '— chunks'", async ({
    page,
    space,
  }) => {
    test.setTimeout(180_000);
    const md = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\n${englishText(25_000, `big-${i}`)}`).join("\n\n");
    const ingest = new IngestPage(page);
    await ingest.goto();
    await ingest.setSpace(space);
    await ingest.upload([{ name: "big.md", mimeType: "text/markdown", buffer: Buffer.from(`# Big\n\n${md}`) }]);
    const row = ingest.row("big.md");
    const labels: string[] = [];
    await expect
      .poll(
        async () => {
          const seen = await ingest.statusAndLabel("big.md");
          if (!seen) return "none";
          const { status, label } = seen;
          if (status === "processing") labels.push(label);
          expect(await row.textContent(), "the row never says '— chunks'").not.toContain("— chunks");
          if (labels.length === 8) await shot(page, "ingest-progress-1280");
          return status;
        },
        { timeout: 150_000, intervals: [100] },
      )
      .toBe("done");
    const stages = labels.filter((l) => l !== "reading the file…");
    expect(stages.length, `labels seen: ${[...new Set(labels)].join(" | ")}`).toBeGreaterThan(3);
    for (const l of stages) expect(l).toMatch(/\d+%/);
    expect(
      stages.some((l) => / left/.test(l)),
      `labels seen: ${[...new Set(labels)].join(" | ")}`,
    ).toBe(true);
  });
});
