import net from "node:net";
import { test, expect } from "./chat-fixtures";
import type { ChatApi } from "./support/chat-api";

/**
 * Message actions (Copy, Copy code, Regenerate, Edit, Retry), the memory line under a reply, conversation
 * search, pin and export, the provider chip and Settings' Test on unsaved values — against the
 * OpenAI-compatible test double (e2e/support/openai-fixture.ts).
 */

// A returning user: the first-run checklist (shown above the chat until dismissed) is out of the way;
// the next spec finds it as a first run does.
test.beforeEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(true)));
test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

const token = () => Math.random().toString(36).slice(2, 8);

/** The space's live chat memories once the persistence queue has caught up with `expected` of them. */
async function chatMemories(chatApi: ChatApi, space: string, expected: number, contains?: string) {
  let items: { content: string; kind: string }[] = [];
  await expect
    .poll(
      async () => {
        items = (await chatApi.liveMemories(space)).filter((m) => m.kind === "chat");
        return items.length === expected && (!contains || items.some((m) => m.content.includes(contains)));
      },
      { timeout: 20_000, message: `${expected} chat memories in ${space}${contains ? ` with ${contains}` : ""}` },
    )
    .toBe(true);
  return items;
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test.describe("Message actions", () => {
  test("Regenerate calls the provider again and replaces the reply: one reply, one memory", async ({
    chat,
    chatApi,
    space,
  }) => {
    const q = `Pick a number ${token()} [fixture:count]`;
    await chat.goto(space);
    const first = await chat.send(q);
    await expect(chat.replyText(first)).toContainText("Answer number 1");
    await chatMemories(chatApi, space, 1, "Answer number 1");
    await expect(first.getByTestId("remembered-link")).toHaveCount(1);

    const again = await chat.regenerate();
    await expect(chat.replyText(again)).toContainText("Answer number 2");
    expect(await chatApi.providerCalls(q)).toBe(2);
    await expect(chat.replies).toHaveCount(1);
    const mem = await chatMemories(chatApi, space, 1, "Answer number 2");
    expect(mem.some((m) => m.content.includes("Answer number 1"))).toBe(false);
    // Stored that way: a reload shows the one reply.
    await chat.gotoConversation(await chat.conversationId());
    await expect(chat.replies).toHaveCount(1);
    await expect(chat.replyText(chat.lastReply())).toContainText("Answer number 2");
    // "Remembered" opens the Manager on that memory.
    await chat.lastReply().getByTestId("remembered-link").click();
    await expect(chat.page.getByTestId("memory-row")).toHaveCount(1);
    await expect(chat.page.getByTestId("memory-content")).toContainText("Answer number 2");
  });

  test("Edit resends in place and replaces what followed: memory keeps only the new exchange", async ({
    chat,
    chatApi,
    space,
  }) => {
    const t = token();
    await chat.goto(space);
    await chat.send(`Original question ${t}`);
    await chat.send(`Follow-up ${t}`);
    await chatMemories(chatApi, space, 2);
    const edited = `Edited question ${t}`;
    const reply = await chat.edit(chat.userMessages.first(), edited);
    await expect(chat.replyText(reply)).toContainText(`Fixture reply to: ${edited}`);
    await expect(chat.userMessages.getByTestId("user-text")).toHaveText([edited]);
    await expect(chat.replies).toHaveCount(1);
    expect(await chatApi.providerCalls(edited)).toBe(1);
    const mem = await chatMemories(chatApi, space, 1, edited);
    expect(mem[0]!.content).not.toContain("Original question");
  });

  test("Retry after a provider error calls it again: one reply, one memory", async ({ chat, chatApi, space }) => {
    const q = `Flaky ${token()} [fixture:fail-once]`;
    await chat.goto(space);
    const failed = await chat.send(q);
    await expect(chat.replyError(failed)).toContainText("HTTP 500");
    const ok = await chat.retry();
    await expect(chat.replyText(ok)).toContainText(`Fixture reply to: ${q}`);
    await expect(chat.replyError(ok)).toHaveCount(0);
    expect(await chatApi.providerCalls(q)).toBe(2);
    await expect(chat.replies).toHaveCount(1);
    await expect(chat.userMessages).toHaveCount(1);
    await chatMemories(chatApi, space, 1, q);
  });

  test("a mid-stream failure is reported once, in plain words; Retry replaces the cut-short reply and its memory", async ({
    chat,
    chatApi,
    space,
  }) => {
    const q = `Cut ${token()} [fixture:cut-once]`;
    await chat.goto(space);
    const cut = await chat.send(q);
    await expect(chat.replyError(cut)).toHaveCount(1);
    await expect(chat.replyError(cut)).toContainText("closed the connection before the reply finished");
    await expect(cut).not.toContainText("terminated");
    await expect(chat.messages.getByRole("alert")).toHaveCount(1);
    await chatMemories(chatApi, space, 1, "Fixture reply to: Cut"); // the note stays on the message, not in memory
    const ok = await chat.retry();
    await expect(chat.replyText(ok)).toContainText("No memory block received.");
    await expect(chat.replies).toHaveCount(1);
    const mem = await chatMemories(chatApi, space, 1, "No memory block received.");
    expect(mem[0]!.content).not.toContain("[interrupted:");
  });

  test("Copy on messages and Copy code on code blocks", async ({ chat, space, page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await chat.goto(space);
    const reply = await chat.send("Show me code [fixture:long] [fixture:fast]"); // the reply, not its stream
    await chat.userMessages.last().getByRole("button", { name: "Copy", exact: true }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      "Show me code [fixture:long] [fixture:fast]",
    );
    await reply.getByRole("button", { name: "Copy code" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
      "export function total(xs: number[]): number {",
    );
    await reply.getByRole("button", { name: "Copy", exact: true }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain("Fixture reply to: Show me code");
    expect(copied).toContain("END-OF-LONG-REPLY");
  });
});

test.describe("Conversations", () => {
  test("Search conversations filters by title and message text, safely; pin and export", async ({
    chat,
    space,
    page,
  }) => {
    const t = token();
    await chat.goto(space);
    await chat.send(`Apricot jam recipe ${t}`);
    await chat.send(`Also: the secret ingredient is cardamom${t}`);
    // Another space: recall never crosses spaces, so its reply cannot quote the first conversation.
    await chat.goto(`${space}-b`.slice(0, 64));
    await chat.send(`Bicycle repair ${t}`);

    await chat.search.fill(`apricot ${t}`);
    await expect(chat.conversationItems).toHaveCount(1);
    await expect(chat.conversation(/Apricot jam/)).toHaveCount(1);
    // Message text (not the title), the last word as a prefix.
    await chat.search.fill(`cardamom${t.slice(0, 3)}`);
    await expect(chat.conversation(/Apricot jam/)).toHaveCount(1);
    await expect(chat.conversationItems).toHaveCount(1);
    await expect(chat.conversationItems.getByTestId("conversation-snippet")).toContainText("cardamom");
    // FTS syntax is just text.
    await chat.search.fill(`"bicycle* (${t}:`);
    await expect(chat.conversation(/Bicycle repair/)).toHaveCount(1);
    await expect(chat.conversationItems).toHaveCount(1);
    await chat.search.fill(`"*( ^:`);
    await expect(chat.conversationItems).toHaveCount(0);
    await chat.search.fill(`nothing-like-this-${t}`);
    await expect(chat.conversationItems).toHaveCount(0);
    await expect(chat.conversations).toContainText("No conversation contains these words.");
    await chat.search.fill("");

    // Groups with dates; pin moves it to Pinned.
    await expect(chat.conversations.getByRole("region", { name: "Today" })).toBeVisible();
    const apricot = chat.conversation(/Apricot jam/);
    await apricot.getByRole("button", { name: /^Pin / }).click();
    await expect(
      chat.conversations.getByRole("region", { name: "Pinned" }).getByRole("link", { name: /Apricot jam/ }),
    ).toBeVisible();
    // Today's chat shows its time, in the app's one date format (app/_ui/local-time.ts; the browser is en-US).
    await expect(apricot.locator("time")).toHaveText(/^\d{1,2}:\d{2}\s(AM|PM)$/);

    const download = page.waitForEvent("download");
    await chat
      .conversation(/Apricot jam/)
      .getByRole("button", { name: /^Export .* as Markdown$/ })
      .click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^apricot-jam-recipe.*\.md$/);
    const md = await (await file.createReadStream()).toArray();
    const text = Buffer.concat(md).toString("utf8");
    expect(text).toContain(`# Apricot jam recipe ${t}`);
    expect(text).toContain(`## You · `);
    expect(text).toContain(`cardamom${t}`);
    await chat
      .conversation(/Apricot jam/)
      .getByRole("button", { name: /^Unpin / })
      .click();
  });
});

test.describe("Provider state", () => {
  test("the chip goes from ready to unreachable; Settings' Test tries the form's unsaved values", async ({
    chat,
    chatApi,
    providers,
    space,
    page,
  }) => {
    await chat.goto(space);
    await expect(chat.providerChip).toHaveAttribute("data-state", "ready");
    const port = await closedPort();
    await chatApi.saveProviders({ openai: { baseUrl: `http://127.0.0.1:${port}/v1` } });
    await page.reload();
    await expect(chat.providerChip).toHaveAttribute("data-state", "unreachable", { timeout: 20_000 });
    await expect(chat.providerChip).toHaveAttribute("aria-label", /connection refused/);
    await chatApi.resetProviders();

    await providers.goto();
    const other = await closedPort();
    await providers.baseUrl.fill(`http://127.0.0.1:${other}/v1`);
    await providers.testButton.click();
    await expect(providers.testResult).toContainText(`127.0.0.1:${other}`);
    // Nothing was saved: the chat still answers from the environment's provider.
    await chat.goto(space);
    await expect(chat.providerChip).toHaveAttribute("data-state", "ready");
  });
});
