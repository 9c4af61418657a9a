import net from "node:net";
import { test, expect } from "./chat-fixtures";
import { defaultSettingsFor } from "../server/memory/retrieval/settings";
import { expectNoHorizontalScroll } from "./support/layout";

/**
 * The chat page against the OpenAI-compatible test double (e2e/support/openai-fixture.ts), which replies
 * "Fixture reply to: <message>" and echoes the [Relevant Memories] block it received.
 */

const token = () => Math.random().toString(36).slice(2, 8);

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test.describe("Chat", () => {
  test("a fact chatted in one conversation is recalled in a new one: the reply echoes it and lists it under the reply", async ({
    chat,
    chatApi,
    space,
    page,
  }) => {
    const code = token();
    const fact = `My sister Anna moved to Lisbon and her cat is called Biscuit-${code}.`;
    await chat.goto(space);
    const first = await chat.send(fact);
    await expect(chat.replyText(first)).toContainText(`Fixture reply to: ${fact}`);
    await expect(chat.replyText(first)).toContainText("No memory block received.");
    const firstId = await chat.conversationId();
    await expect(chat.conversation(fact.slice(0, 40))).toHaveCount(1);
    // The exchange becomes a memory after the reply (off the reply path).
    const memory = await chatApi.waitForMemory(space, "Anna cat Biscuit", `Biscuit-${code}`);
    expect(memory.content).toMatch(/^User: My sister Anna moved to Lisbon/);

    await chat.newChatButton.click();
    await expect(chat.title).toHaveText("New conversation");
    await expect(chat.spaceSelect).toHaveValue(space);
    const second = await chat.send("What is the name of my sister Anna's cat?");
    expect(await chat.conversationId()).not.toBe(firstId);
    // The provider received the memory in its system prompt and echoed it back.
    await expect(chat.replyText(second)).toContainText("Memory block received:");
    await expect(chat.replyText(second)).toContainText(`Biscuit-${code}`);
    // The page lists it under the reply, with why it was recalled.
    const recalled = await chat.openRecalled(second);
    const item = recalled.getByTestId("recalled-memory").filter({ hasText: `Biscuit-${code}` });
    await expect(item).toHaveCount(1);
    await expect(item.getByTestId("recalled-match")).toHaveText(/^(hybrid|fts|vector)$/);
    await expect(item.locator("time")).toHaveText(/\d{4}/); // the day, in the browser's locale
    await expect(item).toContainText(/importance \d/);
    await expect(item.getByRole("definition")).toHaveCount(5);
    // Used because its confidence reached the minimum (the offline model's default).
    const confidence = Number(await item.getByTestId("recalled-confidence").textContent());
    expect(confidence).toBeGreaterThanOrEqual(
      defaultSettingsFor("universal-sentence-encoder-lite").minConfidence - 0.005,
    );
    expect(confidence).toBeLessThanOrEqual(1);
    await page.screenshot({ path: "test-results/chat-recalled.png", fullPage: true });

    // Stored with the reply: a reload shows the same list.
    const secondId = await chat.conversationId();
    await chat.gotoConversation(secondId);
    await expect(chat.replies).toHaveCount(1);
    const again = await chat.openRecalled(chat.lastReply());
    const kept = again.getByTestId("recalled-memory").filter({ hasText: `Biscuit-${code}` });
    await expect(kept).toHaveCount(1);
  });

  test("/remember then /forget through the chat box, with undo", async ({ chat, chatApi, space, api }) => {
    const code = token();
    await chat.goto(space);
    const r = await chat.send(`/remember My locker code is ${code}-7781`);
    await expect(chat.replyText(r)).toContainText(`Remembered (pinned): “My locker code is ${code}-7781”`);
    const m = await chatApi.waitForMemory(space, "locker code", `${code}-7781`);
    expect(m.content).toBe(`My locker code is ${code}-7781`);

    // The memory is pinned: /forget lists it and asks first; nothing is forgotten until confirmed.
    const f = await chat.send(`/forget LOCKER CODE IS ${code}`);
    await expect(chat.replyText(f)).toContainText(
      `1 memory matches “LOCKER CODE IS ${code}”, 1 of them pinned. Nothing is forgotten until you confirm.`,
    );
    await expect(f.getByTestId("forget-match")).toHaveText([new RegExp(`My locker code is ${code}-7781`)]);
    expect((await api.search({ query: "locker code", space })).results.map((x) => x.id)).toContain(m.id);
    await f.getByTestId("forget-confirm-yes").click();
    await expect(f.getByTestId("forgotten-item")).toHaveText([new RegExp(`My locker code is ${code}-7781`)]);
    expect((await api.search({ query: "locker code", space })).results.map((x) => x.id)).not.toContain(m.id);

    await f.getByRole("button", { name: "Undo" }).click();
    await expect(f.getByTestId("forget-undone")).toHaveText("Undone: 1 memory restored.");
    expect((await api.search({ query: "locker code", space })).results.map((x) => x.id)).toContain(m.id);
    // Commands are kept in the conversation (with their undo state) but are not chat memories.
    await chat.gotoConversation(await chat.conversationId());
    await expect(chat.replies).toHaveCount(2);
    await expect(chat.replies.last().getByTestId("forget-undone")).toBeVisible();
  });

  test("a provider that is down shows an error, not a hang; so does one that never answers", async ({
    chat,
    chatApi,
    providers,
    space,
  }) => {
    const port = await closedPort();
    await providers.goto();
    await providers.baseUrl.fill(`http://127.0.0.1:${port}/v1`);
    await providers.timeout.fill("2");
    await providers.save();
    await expect(providers.state).toContainText("Chat uses OpenAI-compatible");

    await chat.goto(space);
    const t0 = Date.now();
    const down = await chat.send("Is anyone there?", { timeout: 10_000 });
    await expect(chat.replyError(down)).toContainText(
      `Cannot reach OpenAI-compatible at http://127.0.0.1:${port}/v1: connection refused`,
    );
    expect(Date.now() - t0).toBeLessThan(10_000);

    // The fixture again, but it never answers this message: the configured 2 s timeout ends it.
    await chatApi.saveProviders({ openai: { baseUrl: "" } });
    const hung = await chat.send("[fixture:hang] hello?", { timeout: 15_000 });
    await expect(chat.replyError(hung)).toContainText("sent nothing for 2 s");
    await expect(chat.input).toBeEnabled();
  });

  test("with no provider, the page says how to configure one and memory commands still work", async ({
    chat,
    chatApi,
    providers,
    space,
    page,
  }) => {
    void chatApi; // resets the provider settings afterwards
    await providers.goto();
    await providers.choose("None (memory commands only)");
    await providers.save();
    await expect(providers.state).toContainText("No chat provider is configured");
    await page.screenshot({ path: "test-results/settings-providers.png", fullPage: true });
    // The provider form is built from the family registry (families.ts): the phone layout too.
    await page.setViewportSize({ width: 390, height: 844 });
    await providers.section.screenshot({ path: "test-results/settings-providers-390.png" });
    await page.setViewportSize({ width: 1280, height: 800 });

    await chat.goto(space);
    await expect(chat.noProvider).toContainText("Connect a model");
    await expect(chat.noProvider).toContainText("MEMO_PROVIDER=openai");
    await expect(chat.noProvider.getByRole("link", { name: "Settings → Providers" })).toHaveAttribute(
      "href",
      "/settings#providers",
    );
    const r = await chat.send("/remember The spare key is under the blue pot");
    await expect(chat.replyText(r)).toContainText("Remembered (pinned)");
    const q = await chat.send("Where is the spare key?");
    await expect(chat.replyError(q)).toContainText("No model is connected, so nothing answered.");
  });

  test("conversations: streamed Markdown with highlighted code; rename and delete from the list", async ({
    chat,
    space,
    page,
  }) => {
    const title = `Code ${token()}`;
    await chat.goto(space);
    const reply = await chat.send(`${title}\n\n\`\`\`js\nconst answer = 42;\n\`\`\`\n\n- **bold** item`);
    await expect(reply.locator("pre code.hljs.language-js")).toContainText("const answer = 42;");
    await expect(reply.locator("pre code .hljs-keyword").first()).toHaveText("const");
    await expect(reply.locator("li strong")).toHaveText("bold");

    await chat.rename(title, `${title} renamed`);
    await expect(chat.title).toHaveText(`${title} renamed`);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page, "no horizontal scrolling on a phone-sized screen");
    await page.screenshot({ path: "test-results/chat-narrow.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    await chat.delete(`${title} renamed`);
    await expect(chat.title).toHaveText("New conversation");
    await expect(page).toHaveURL(/\/(\?space=.*)?$/);
  });

  test("the provider picker lists the endpoint's models and switches the model", async ({ chat, chatApi, page }) => {
    void chatApi;
    await chat.goto();
    await expect(chat.providerSelect).toHaveValue("openai");
    await expect(chat.modelSelect).toHaveValue("fixture-echo");
    await expect(chat.modelSelect.locator("option")).toHaveText(["fixture-echo", "fixture-echo-2"]);
    await chat.modelSelect.selectOption("fixture-echo-2");
    await expect(chat.modelSelect).toHaveValue("fixture-echo-2");
    await page.reload();
    await expect(chat.modelSelect).toHaveValue("fixture-echo-2");
  });
});
