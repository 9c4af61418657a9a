import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";
import { AnalyticsPage } from "./pages/analytics.page";
import { IngestPage } from "./pages/ingest.page";
import { SettingsPage } from "./pages/settings.page";

/**
 * What a first hour in the chat shows (issue 34, items 4–14): a document's name and section on what it
 * recalls, a page that does not scroll past its transcript, compact dismissible banners, right-to-left
 * text, safe links in replies, per-page and per-chat titles, and the phone drawer and toolbar. Writes
 * screenshots to test-results/screenshots/polish-*.png.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
test.use({ viewport: DESKTOP });

const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screenshots/polish-${name}.png` });

/** The page itself scrolls neither way: only the transcript and the lists in it do. */
async function expectNoPageScroll(page: Page) {
  const m = await page.evaluate(() => {
    const el = document.scrollingElement!;
    return { sh: el.scrollHeight, ch: el.clientHeight, sw: el.scrollWidth, cw: el.clientWidth };
  });
  expect(m.sh, "page height").toBeLessThanOrEqual(m.ch + 1);
  expect(m.sw, "page width").toBeLessThanOrEqual(m.cw + 1);
}

test.describe("returning user", () => {
  test.beforeEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(true)));
  test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

  for (const [name, viewport] of [
    ["1280", DESKTOP],
    ["390", PHONE],
  ] as const) {
    test(`${name} px: a long reply with code keeps the page still; the hint under the composer shows`, async ({
      chat,
      space,
      page,
    }) => {
      test.setTimeout(150_000); // two long replies on a busy machine
      await page.setViewportSize(viewport);
      await chat.goto(space);
      for (const q of [
        // The page once the replies are in, not their stream (chat-shell.spec.ts follows a stream): no pauses.
        "First long answer [fixture:long] [fixture:fast]",
        "Second long answer [fixture:long] [fixture:fast]",
      ]) {
        await chat.input.fill(q);
        await chat.input.press("Enter");
        await chat.settled(chat.lastReply());
      }
      // Every reply and code block has its Copy button (with hidden status text): none of it leaks out.
      expect(await page.getByRole("button", { name: /^Copy/ }).count()).toBeGreaterThanOrEqual(6);
      await expectNoPageScroll(page);
      await expect(page.locator("#composer-hint")).toBeInViewport({ ratio: 1 });
      await shot(page, `long-${name}`);
    });
  }

  test("a recalled document chunk is named by its file and section, on the card and to the model", async ({
    chat,
    space,
    page,
  }) => {
    test.setTimeout(120_000);
    const ingest = new IngestPage(page);
    await ingest.goto();
    await ingest.setSpace(space);
    const doc = [
      "# Garden guide",
      "",
      "## Watering the tomatoes",
      "",
      "Water the greenhouse tomatoes every Tuesday at seven in the morning, with the blue watering can.",
      "",
    ].join("\n");
    await ingest.upload([{ name: "garden-guide.md", mimeType: "text/markdown", buffer: Buffer.from(doc) }]);
    await expect(ingest.status("garden-guide.md")).toHaveText("done", { timeout: 60_000 });

    await chat.goto(space);
    const reply = await chat.send("When do I water the greenhouse tomatoes with the blue watering can?");
    // What the model received (the test double echoes its memory block): the file and section, not "document".
    await expect(chat.replyText(reply)).toContainText(
      "(from garden-guide.md, section “Garden guide › Watering the tomatoes”)",
    );
    const card = await chat.openRecalled(reply);
    await expect(card.getByTestId("recalled-source").first()).toHaveText(
      "from garden-guide.md · Garden guide › Watering the tomatoes",
    );
    await shot(page, "document-recall-1280");
  });

  test("links in replies open in a new tab; a javascript: link is plain text", async ({ chat, space }) => {
    await chat.goto(space);
    const reply = await chat.send("See [the docs](https://example.com/guide) and [click me](javascript:alert(1)) now");
    const text = chat.replyText(reply);
    const good = text.getByRole("link", { name: "the docs" });
    await expect(good).toHaveAttribute("href", "https://example.com/guide");
    await expect(good).toHaveAttribute("target", "_blank");
    await expect(good).toHaveAttribute("rel", "noopener noreferrer");
    await expect(text.getByRole("link", { name: "click me" })).toHaveCount(0);
    await expect(text.getByText("click me", { exact: true })).toBeVisible();
    await expect(text.locator('a[href=""], a:not([href])')).toHaveCount(0);
  });

  test("right-to-left text reads right to left: messages, composer, title and sidebar", async ({
    chat,
    space,
    page,
  }) => {
    await chat.goto(space);
    const hebrew = "מה שלומך היום? אני רוצה לדבר על הגינה שלי ועל העגבניות.";
    await chat.input.fill(hebrew);
    const rtl = (sel: ReturnType<Page["locator"]>) => sel.evaluate((el) => el.matches(":dir(rtl)"));
    expect(await rtl(chat.input)).toBe(true);
    await chat.sendButton.click();
    const reply = await chat.settled(chat.lastReply());
    expect(await rtl(chat.userMessages.last().getByTestId("user-text"))).toBe(true);
    await expect(chat.title).toHaveText(/מה שלומך/);
    expect(await rtl(chat.title)).toBe(true);
    const item = chat.conversationItems.filter({ hasText: "מה שלומך" }).getByRole("link");
    expect(await rtl(item)).toBe(true);
    // The reply starts with the test double's English words: it stays left to right.
    expect(await rtl(chat.replyText(reply))).toBe(false);
    // An English composer is left to right again.
    await chat.input.fill("Hello");
    expect(await rtl(chat.input)).toBe(false);
    await shot(page, "rtl-1280");
  });

  test("each page and each chat has its own document title", async ({ chat, space, page }) => {
    for (const [path, title] of [
      ["/memory/search", "Debug Search · Memo"],
      ["/memory/manager", "Manager · Memo"],
      ["/memory/analytics", "Analytics · Memo"],
      ["/settings", "Settings · Memo"],
      ["/ingest", "Ingest · Memo"],
    ] as const) {
      await page.goto(path);
      await expect(page).toHaveTitle(title);
    }
    await chat.goto(space);
    await expect(page).toHaveTitle("New conversation · Memo");
    await chat.send("Plan the allotment for spring");
    const id = await chat.conversationId();
    // "New conversation" before the first reply, "Conversation" while the stored conversation loads: read the
    // title once it is the conversation's own.
    await expect(chat.title).not.toHaveText(/^(New conversation|Conversation)$/);
    const chatTitle = (await chat.title.textContent())!;
    await expect(page).toHaveTitle(`${chatTitle} · Memo`);
    await page.goto("/settings");
    await chat.gotoConversation(id);
    await expect(page).toHaveTitle(`${chatTitle} · Memo`);
  });

  test("phone: the toolbar wraps instead of scrolling, space names show whole, Esc closes the drawer", async ({
    chat,
    space,
    page,
  }) => {
    void space;
    await page.setViewportSize(PHONE);
    await chat.goto(); // the default space, "personal"
    // The chat's options are folded behind one button on a phone (issue 50).
    await chat.optionsButton.click();
    await expect(chat.spaceSelect).toHaveValue("personal");
    // The Space/Provider/Model row fits the width: nothing to scroll sideways, and the space shows whole.
    const row = chat.spaceSelect.locator("xpath=ancestor::div[1]");
    const fits = await row.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
    expect(fits).toBe(true);
    for (const sel of [chat.spaceSelect, chat.providerSelect, chat.modelSelect]) {
      const b = (await sel.boundingBox())!;
      expect(b.x + b.width, "inside the screen").toBeLessThanOrEqual(PHONE.width);
    }
    const whole = await chat.spaceSelect.evaluate((el: HTMLSelectElement) => {
      const probe = document.createElement("span");
      probe.style.cssText = `font:${getComputedStyle(el).font};white-space:nowrap;position:absolute;visibility:hidden`;
      probe.textContent = el.selectedOptions[0]?.textContent ?? "";
      document.body.append(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      return { need, has: el.clientWidth };
    });
    expect(whole.need, "the space name's width fits its box").toBeLessThan(whole.has);
    await shot(page, "toolbar-390");

    // In the drawer, a conversation's space name shows whole beside (or above) its actions.
    await chat.send("Note for the drawer check");
    const id = await chat.conversationId();
    await chat.openDrawerButton.click();
    const drawer = page.getByRole("dialog", { name: "Conversations" });
    await expect(drawer).toBeVisible();
    const spaceName = drawer
      .locator(`[data-testid="conversation-item"][data-id="${id}"]`)
      .getByTestId("conversation-space");
    await expect(spaceName).toHaveText("personal");
    expect(await spaceName.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await shot(page, "drawer-390");
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
  });
});

test.describe("first run", () => {
  test("390 px: compact banners, the composer on the first screen; a dismissed banner stays dismissed", async ({
    chat,
    page,
  }) => {
    await page.setViewportSize(PHONE);
    await chat.goto();
    await expect(page.getByTestId("first-run-checklist")).toBeVisible();
    const notice = page.getByTestId("banner-notice").first();
    await expect(notice).toContainText("Embedding model: the bundled offline model");
    expect((await notice.boundingBox())!.height, "a compact banner").toBeLessThanOrEqual(48);
    await expect(chat.input).toBeInViewport({ ratio: 1 });
    await expect(chat.sendButton).toBeInViewport({ ratio: 1 });
    await shot(page, "first-run-390");

    await notice.getByRole("button", { name: "Dismiss this notice" }).click();
    await expect(page.getByTestId("banner-notice")).toHaveCount(0);
    await page.reload();
    await expect(chat.input).toBeVisible();
    await expect(page.getByTestId("first-run-checklist")).toBeVisible();
    await expect(page.getByTestId("banner-notice")).toHaveCount(0);
    await page.goto("/settings");
    await expect(page.getByTestId("banner-notice")).toHaveCount(0);
  });

  test("1280 px: the first-run page with its banner and checklist", async ({ chat, page }) => {
    await page.setViewportSize(DESKTOP);
    await chat.goto();
    await expect(page.getByTestId("first-run-checklist").getByRole("listitem")).toHaveCount(4);
    await expect(page.getByTestId("banner-notice").first()).toBeVisible();
    await expect(chat.input).toBeInViewport({ ratio: 1 });
    await shot(page, "first-run-1280");
  });
});

test("/forget: once confirmed the reply says what happened and lists each memory once; a /remember chat is named by its fact", async ({
  chat,
  space,
}) => {
  await chat.goto(space);
  await chat.send("/remember Peanut is the neighbour's cat");
  await expect(chat.title).toHaveText("Peanut is the neighbour's cat");
  const f = await chat.send("/forget peanut");
  const text = chat.replyText(f);
  await expect(text).toContainText("Nothing is forgotten until you confirm.");
  await expect(f.getByText(/Peanut is the neighbour's cat/)).toHaveCount(1);
  await f.getByTestId("forget-confirm-yes").click();
  await expect(text).toHaveText(/^Forgot 1 memory matching “peanut”/);
  await expect(f.getByTestId("forgotten-item")).toHaveText([/Peanut is the neighbour's cat$/]);
  await expect(f.getByText(/Peanut is the neighbour's cat/)).toHaveCount(1);
  // The same after a reload: the stored reply changed with the answer.
  await chat.gotoConversation(await chat.conversationId());
  await expect(chat.replyText(chat.lastReply())).toHaveText(/^Forgot 1 memory matching “peanut”/);
  await expect(chat.replyText(chat.lastReply())).not.toContainText("until you confirm");
});

test("Settings → Retrieval: one line says what is on; the fields wait behind Advanced, open as last left", async ({
  page,
  consoleWatch,
}) => {
  void consoleWatch;
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Retrieval settings" });
  await expect(form.getByTestId("retrieval-summary")).toHaveText(
    /^Up to \d+ memories per reply at confidence [\d.]+ or more, within \d+ tokens; .* fusion; on: .+\.$/,
  );
  const topN = form.getByRole("spinbutton", { name: "Memories per reply (top N)" });
  await expect(topN).toBeHidden();
  await expect(form.getByTestId("retrieval-advanced").locator("summary")).toHaveText(/^Advanced: \d+ settings/);
  await page
    .getByTestId("retrieval-section")
    .screenshot({ path: "test-results/screenshots/polish-settings-retrieval-1280.png" });
  const settings = new SettingsPage(page);
  await settings.openAdvanced();
  await expect(topN).toBeVisible();
  await page.reload();
  await expect(topN).toBeVisible();
});

test("Analytics: Run decay now leaves the page where it was; the counts say what they mean", async ({
  page,
  consoleWatch,
}) => {
  void consoleWatch;
  const analytics = new AnalyticsPage(page);
  await analytics.goto();
  const run = analytics.jobsPanel.getByTestId("run-decay");
  await run.scrollIntoViewIfNeeded();
  const before = { y: (await run.boundingBox())!.y, scroll: await page.evaluate(() => window.scrollY) };
  await run.click();
  await expect(analytics.jobsPanel.getByTestId("job-result")).toContainText("promoted by recall");
  await expect(analytics.jobsPanel.getByTestId("jobs-legend")).toContainText(
    "Promoted by recall: recalled into a prompt",
  );
  expect(await page.evaluate(() => window.scrollY)).toBe(before.scroll);
  expect(Math.abs((await run.boundingBox())!.y - before.y)).toBeLessThanOrEqual(1);
});
