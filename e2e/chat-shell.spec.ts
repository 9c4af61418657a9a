import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";
import type { ChatPage } from "./pages/chat.page";

/**
 * The chat page as an app shell, at a desktop and a phone size: the end of a long streamed reply stays in
 * view above the composer, "Jump to latest" when scrolled up, the phone drawer, the composer's limit and
 * draft, keyboard shortcuts. Writes screenshots to test-results/screenshots/.
 */

// A returning user: the first-run checklist (shown above the chat until dismissed) is out of the way;
// the next spec finds it as a first run does.
test.beforeEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(true)));
test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

const SIZES = [
  { name: "1280", viewport: { width: 1280, height: 800 } },
  { name: "390", viewport: { width: 390, height: 844 } },
] as const;

const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screenshots/${name}.png` });

/** The end marker of the long reply is visible: inside the viewport and above the composer's top edge. */
async function expectEndAboveComposer(chat: ChatPage) {
  const end = chat.replyText(chat.lastReply()).getByText("END-OF-LONG-REPLY", { exact: true }).last();
  await expect(end).toBeInViewport();
  const e = (await end.boundingBox())!;
  const c = (await chat.composer.boundingBox())!;
  const vh = chat.page.viewportSize()!.height;
  expect(e.y + e.height, "end of the reply above the composer").toBeLessThanOrEqual(c.y);
  expect(e.y, "end of the reply below the top of the viewport").toBeGreaterThanOrEqual(0);
  expect(c.y + c.height, "composer at the bottom of the viewport").toBeLessThanOrEqual(vh + 1);
  expect(vh - (c.y + c.height), "composer at the bottom of the viewport").toBeLessThan(4);
}

for (const size of SIZES) {
  test.describe(`Chat shell at ${size.name} px`, () => {
    test.use({ viewport: size.viewport });

    test("empty chat: compact header, composer at the bottom, focused", async ({ chat, space, page }) => {
      await chat.goto(space);
      await expect(chat.input).toBeFocused();
      const header = (await page.locator("body > header").boundingBox())!;
      expect(header.height).toBeLessThanOrEqual(size.viewport.width < 640 ? 64 : 48);
      const c = (await chat.composer.boundingBox())!;
      expect(size.viewport.height - (c.y + c.height)).toBeLessThan(4);
      await expect(chat.providerChip).toHaveAttribute("data-state", "ready");
      // The page itself does not scroll: the lists do.
      expect(await page.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight + 1)).toBe(true);
      await shot(page, `chat-empty-${size.name}`);
    });

    test("the end of a long streamed reply stays in view above the composer; scrolling up shows Jump to latest", async ({
      chat,
      space,
      page,
    }) => {
      await chat.goto(space);
      await chat.input.fill("Give me the long plan [fixture:long]");
      await chat.input.press("Enter");
      const reply = chat.lastReply();
      // While it streams and the user stays at the bottom, the list follows the end.
      await expect(chat.replyText(reply).getByText(/Paragraph 3\./)).toBeVisible();
      expect(await chat.distanceFromEnd()).toBeLessThanOrEqual(32);
      await chat.settled(reply);
      await expectEndAboveComposer(chat);
      await shot(page, `chat-long-reply-${size.name}`);

      // Scrolled up during a stream: no snapping back, and a way down.
      await chat.input.fill("Once more, long [fixture:long]");
      await chat.input.press("Enter");
      await expect(chat.replyText(chat.lastReply()).getByText(/Step 5:/)).toBeVisible();
      await chat.scroller.evaluate((el) => el.scrollTo({ top: 0 }));
      await expect(chat.jumpToLatest).toBeVisible();
      await chat.settled(chat.lastReply());
      expect(await chat.scroller.evaluate((el) => el.scrollTop)).toBeLessThan(50);
      await chat.jumpToLatest.click();
      await expect(chat.jumpToLatest).toHaveCount(0);
      await expectEndAboveComposer(chat);
    });

    test("a provider error: one plain message and Retry", async ({ chat, space, page }) => {
      await chat.goto(space);
      const reply = await chat.send("This will fail [fixture:500]");
      await expect(chat.replyError(reply)).toHaveCount(1);
      await expect(chat.replyError(reply)).toContainText("HTTP 500");
      await expect(chat.messages.getByRole("alert")).toHaveCount(1);
      await expect(reply.getByRole("button", { name: "Retry" })).toBeVisible();
      await shot(page, `chat-error-${size.name}`);
    });
  });
}

test.describe("Chat shell on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("a first run: banner and checklist above the chat, the chat below them", async ({ chat, chatApi, page }) => {
    await chatApi.setChecklistDismissed(false);
    await page.goto("/");
    await expect(page.getByTestId("first-run-checklist")).toBeVisible();
    const list = (await page.getByTestId("first-run-checklist").boundingBox())!;
    const shell = (await page.getByTestId("chat-shell").boundingBox())!;
    expect(shell.y).toBeGreaterThanOrEqual(list.y + list.height - 1);
    await expect(chat.input).toBeVisible();
    await shot(page, "chat-first-run-390");
  });

  test("conversations live in a drawer", async ({ chat, space, page }) => {
    await chat.goto(space);
    await chat.send(`Drawer test ${space}`);
    await expect(chat.conversations).toBeHidden();
    const nav = await chat.conversationNav();
    await expect(nav.getByRole("link", { name: new RegExp(`Drawer test ${space}`) })).toBeVisible();
    await shot(page, "chat-drawer-390");
    await nav.getByRole("button", { name: "New chat" }).click();
    await expect(chat.title).toHaveText("New conversation");
    await expect(chat.conversations).toBeHidden();
  });
});

test.describe("Composer", () => {
  test("an over-long paste is refused before sending, with the limit, kept across a reload, and can be ingested instead", async ({
    chat,
    chatApi,
    space,
    page,
  }) => {
    await chat.goto(space);
    const marker = `overlong-${space}`;
    await chat.input.fill(`${marker} ${"x".repeat(26_000)}`);
    await expect(chat.charCount).toContainText("/ 32,000");
    await expect(chat.tooLong).toHaveCount(0);
    const long = `${marker} ${"lorem ipsum ".repeat(3400)}`;
    await chat.input.fill(long);
    await expect(chat.tooLong).toContainText("at most 32,000");
    await expect(chat.sendButton).toBeDisabled();
    await chat.input.press("Enter");
    await expect(chat.userMessages).toHaveCount(0);
    expect(await chatApi.providerCalls(marker)).toBe(0);
    await expect(chat.input).toHaveValue(long);

    await page.reload();
    await expect(chat.input).toHaveValue(long);
    await expect(chat.tooLong).toBeVisible();

    await chat.tooLong.getByRole("button", { name: "Ingest as a document" }).click();
    await expect(page.getByTestId("ingest-result")).toContainText(`in '${space}'`);
    await expect(chat.input).toHaveValue("");
  });

  test("the draft is kept per conversation", async ({ chat, space, page }) => {
    await chat.goto(space);
    await chat.send(`First conversation ${space}`);
    const first = await chat.conversationId();
    await chat.input.fill("half-written thought");
    await chat.newChatButton.click();
    await expect(chat.input).toHaveValue("");
    await chat.gotoConversation(first);
    await expect(chat.input).toHaveValue("half-written thought");
    await page.reload();
    await expect(chat.input).toHaveValue("half-written thought");
  });

  test("shortcuts: / focuses the composer, ↑ edits the last message, Esc stops, Ctrl+Shift+O starts a new chat; /help lists them", async ({
    chat,
    space,
    page,
  }) => {
    await chat.goto(space);
    const help = await chat.send("/help");
    for (const k of ["Esc", "Ctrl+Shift+O", "↑", "/"]) await expect(chat.replyText(help)).toContainText(k);

    await chat.title.click();
    await expect(chat.input).not.toBeFocused();
    await page.keyboard.press("/");
    await expect(chat.input).toBeFocused();
    await expect(chat.input).toHaveValue("");

    await chat.input.fill(`Slow one ${space} [fixture:slow]`);
    await chat.input.press("Enter");
    await expect(chat.stopButton).toBeVisible();
    await expect(chat.replyText(chat.lastReply())).toContainText("Fixture reply"); // started: the message is stored
    await page.keyboard.press("Escape");
    await expect(chat.sendButton).toBeVisible();
    await chat.settled(chat.lastReply());

    await chat.input.focus();
    await page.keyboard.press("ArrowUp");
    await expect(page.getByRole("textbox", { name: "Edited message" })).toHaveValue(`Slow one ${space} [fixture:slow]`);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("textbox", { name: "Edited message" })).toHaveCount(0);

    await page.keyboard.press("Control+Shift+O");
    await expect(chat.title).toHaveText("New conversation");
    await expect(page).toHaveURL(/\/(\?space=.*)?$/);
  });
});
