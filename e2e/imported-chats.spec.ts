import type { Page } from "@playwright/test";
import fs from "node:fs";
import { test, expect } from "./chat-fixtures";
import { ManagerPage } from "./pages/manager.page";

/**
 * Imported conversations are conversations (issue 55): a small Claude export imported on Memory → Manager
 * links to its chats; the chat sidebar's search finds the conversation (marked "from Claude", with its
 * original date); it opens with both speakers in order and can be continued. A file that is not JSON is
 * refused with its name. Screenshots of the sidebar at 1280×800 and 390×844 go to
 * test-results/screenshots/imported-chats-*.png.
 */

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/imported-chats-${name}.png` });

/** One conversation about a word no other test uses (the test's space in it keeps runs apart). */
function claudeExport(word: string, id: string) {
  return [
    {
      uuid: `e2e-${id}`,
      name: `${word} the tortoise`,
      created_at: "2023-04-11T08:30:00.000Z",
      updated_at: "2023-04-11T08:40:00.000Z",
      chat_messages: [
        {
          sender: "human",
          text: `My tortoise ${word} stopped eating dandelions. Should I worry?`,
          created_at: "2023-04-11T08:30:00.000Z",
        },
        {
          sender: "assistant",
          text: `A tortoise like ${word} often eats less when it is cold; keep the basking lamp at 30 °C.`,
          created_at: "2023-04-11T08:30:09.000Z",
        },
        { sender: "human", text: "And how often should I bathe it?", created_at: "2023-04-11T08:35:00.000Z" },
        {
          sender: "assistant",
          text: "A shallow lukewarm bath twice a week helps it drink.",
          created_at: "2023-04-11T08:35:06.000Z",
        },
      ],
    },
  ];
}

test("a Claude import's conversation is in the chat sidebar: found by search, marked, opened as it was, continued", async ({
  page,
  chat,
  space,
  consoleWatch,
}, testInfo) => {
  test.setTimeout(120_000);
  const word = `Quillon${space.replace(/[^a-z0-9]/gi, "").slice(-8)}`;
  const file = testInfo.outputPath("conversations.json");
  fs.writeFileSync(file, JSON.stringify(claudeExport(word, space)));
  const manager = new ManagerPage(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await manager.goto();

  // A file that is not JSON: refused, naming it.
  consoleWatch.allow(/Failed to load resource: the server responded with a status of 400/);
  const notes = testInfo.outputPath("notes.txt");
  fs.writeFileSync(notes, "Dear diary, these are not my chats.");
  await manager.importFile("claude", notes, space);
  await expect(manager.error).toContainText("“notes.txt” could not be read: it is not valid JSON.");

  await manager.importFile("claude", file, space);
  const job = manager.job(`Claude · conversations.json → ${space}`).first();
  await expect(job).toHaveAttribute("data-status", "done");
  const links = job.getByTestId("import-conversations");
  await expect(links).toContainText("1 conversation in your chats");
  await job.scrollIntoViewIfNeeded();
  await shot(page, "import-result-1280");
  await links.getByRole("link", { name: `${word} the tortoise` }).click();

  // Opened as it was: both speakers, in order.
  await expect(page).toHaveURL(/\/c\/[0-9a-f-]{36}$/);
  await expect(chat.input).toBeVisible();
  await expect(chat.userMessages).toHaveCount(2);
  await expect(chat.replies).toHaveCount(2);
  await expect(chat.userMessages.first()).toContainText(`My tortoise ${word} stopped eating dandelions`);
  await expect(chat.replies.first()).toContainText("basking lamp");
  await expect(chat.userMessages.nth(1)).toContainText("how often should I bathe it");
  await expect(page.getByTestId("conversation-title")).toHaveText(`${word} the tortoise`);
  await shot(page, "opened-1280");
  const id = await chat.conversationId();

  // The sidebar's search finds it, marked as imported from Claude, with its original date.
  await chat.goto();
  await chat.search.fill(word);
  const item = page.locator(`[data-testid="conversation-item"][data-id="${id}"]`);
  await expect(item).toHaveCount(1);
  await expect(item.getByTestId("conversation-imported")).toHaveText("from Claude");
  await expect(item.locator("time")).toHaveAttribute("dateTime", "2023-04-11T08:35:06.000Z");
  await shot(page, "sidebar-1280");

  // The phone's drawer shows it the same way.
  await page.setViewportSize({ width: 390, height: 844 });
  await chat.goto();
  const nav = await chat.conversationNav();
  await nav.getByRole("searchbox", { name: "Search conversations" }).fill(word);
  const phoneItem = nav.locator(`[data-testid="conversation-item"][data-id="${id}"]`);
  await expect(phoneItem.getByTestId("conversation-snippet")).toBeVisible();
  await expect(phoneItem.getByTestId("conversation-imported")).toHaveText("from Claude");
  await expect(phoneItem.locator("time")).toHaveAttribute("dateTime", "2023-04-11T08:35:06.000Z");
  await shot(page, "sidebar-390");

  // Continued (on the phone): a new message appends a live turn after the imported ones.
  await chat.gotoConversation(id);
  await expect(chat.replies).toHaveCount(2);
  const reply = await chat.send(`What did you tell me about ${word}?`);
  await expect(reply).toContainText("Fixture reply to:");
  await expect(chat.userMessages).toHaveCount(3);
  await expect(chat.userMessages.first()).toContainText(`My tortoise ${word} stopped eating dandelions`);
});
