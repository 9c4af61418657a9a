import { test as base, expect } from "./chat-fixtures";
import { ChatPage } from "./pages/chat.page";
import { PrivacyPage } from "./pages/privacy.page";
import { PrivacyApi } from "./support/privacy-api";

/**
 * Privacy you can see and control, against loopback TEST DOUBLES only: the app's usual fixture (loopback,
 * so memories go), and a second instance that the app counts as remote (MEMO_TREAT_AS_REMOTE, test only).
 * What each fixture received is read back from it and compared with what the page shows.
 */
const test = base.extend<{ privacy: PrivacyPage; privacyApi: PrivacyApi }>({
  privacy: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new PrivacyPage(page));
  },
  privacyApi: async ({ request }, use) => {
    const api = new PrivacyApi(request);
    await use(api);
    await api.forgetSharing();
    api.setClockOffset(0);
  },
});

const token = () => Math.random().toString(36).slice(2, 8);

test.describe("Privacy", () => {
  test("a remote provider: asked once, naming it and its host; off sends no memory block; pinned only sends pinned ones; Sent to shows exactly what it got", async ({
    chat,
    chatApi,
    privacy,
    privacyApi,
    providers,
    api,
    space,
    page,
    request,
  }) => {
    const code = token();
    const pinned = `The passport ${code} is kept in the oak desk drawer.`;
    const plain = `The passport photo ${code} was taken at the station booth.`;
    await api.addMemory({ text: pinned, space, pinned: true });
    await api.addMemory({ text: plain, space });
    // Another origin than the environment's: its key must come with it (a key goes only where it was entered for).
    await chatApi.saveProviders({
      openai: { baseUrl: `http://${privacyApi.remoteHost}/v1`, apiKey: "sk-e2e-fixture" },
    });
    const remote = privacyApi.remoteHost;

    await chat.goto(space);
    const since = await privacyApi.requestCount(remote);
    await chat.input.fill(`Where is my passport ${code} and its photo?`);
    await chat.sendButton.click();
    await expect(privacy.dialog).toBeVisible();
    await expect(privacy.dialog).toContainText("OpenAI-compatible");
    await expect(privacy.dialog).toContainText(remote);
    await page.screenshot({ path: "test-results/privacy-sharing-dialog.png" });
    expect(await privacyApi.received(remote, since), "nothing went before the answer").toEqual([]);
    await privacy.dialog.getByRole("button", { name: "Don't send memories" }).click();
    await expect(privacy.dialog).toHaveCount(0);
    await expect(chat.replies).toHaveCount(1);
    const off = chat.lastReply();
    await expect(off).not.toHaveAttribute("data-status", "streaming");
    await expect(chat.replyText(off)).toContainText("No memory block received.");
    await expect(privacy.sentLine(off)).toContainText(`memory not shared with OpenAI-compatible (${remote})`);
    expect(await privacy.sentBlock(off)).toBeNull();
    expect(await privacyApi.received(remote, since)).toEqual([null]);

    // Remembered: no second question.
    const again = await chat.send(`And the passport ${code} photo?`);
    await expect(privacy.dialog).toHaveCount(0);
    await expect(chat.replyText(again)).toContainText("No memory block received.");

    // Settings → Providers shows the choice; pinned memories only from now on.
    await providers.goto();
    const select = privacy.sharingSelect(remote);
    await expect(select).toHaveValue("off");
    await select.selectOption({ label: "Pinned memories only" });
    await expect(page.getByTestId("sharing-notice")).toHaveText("Memory sharing saved.");
    await page.screenshot({ path: "test-results/privacy-settings.png", fullPage: true });

    await chat.goto(space);
    const before = await privacyApi.requestCount(remote);
    const p = await chat.send(`Where is my passport ${code}? And the photo booth?`);
    const [got] = await privacyApi.received(remote, before);
    expect(got).toContain(pinned);
    expect(got).not.toContain(plain);
    expect(await privacy.sentBlock(p)).toBe(got);
    await expect(privacy.sentLine(p)).toContainText(
      `only pinned memories are shared with OpenAI-compatible (${remote})`,
    );
    await page.screenshot({ path: "test-results/privacy-sent-to.png", fullPage: true });

    // The OpenAI-compatible endpoint follows the same choice and says which memories it sent.
    const res = await request.post("/v1/chat/completions", {
      data: {
        model: "memo",
        memo_space: space,
        messages: [{ role: "user", content: `Where is my passport ${code}?` }],
      },
    });
    expect(res.status()).toBe(200);
    const ids = res.headers()["x-memo-recalled"]!.split(",");
    const pinnedHit = (await api.search({ query: `passport ${code} oak desk`, space })).results.find(
      (r) => r.content === pinned,
    )!;
    expect(ids).toEqual([pinnedHit.id]);
    expect(res.headers()["x-memo-memory-shared"]).toBe("pinned");
  });

  test("a loopback provider gets memories without asking; the Sent to block is what it received", async ({
    chat,
    privacy,
    privacyApi,
    api,
    space,
  }) => {
    const code = token();
    await api.addMemory({ text: `The spare house key ${code} is under the blue flower pot.`, space });
    await chat.goto(space);
    const before = await privacyApi.requestCount(privacyApi.localHost);
    const r = await chat.send(`Where is the spare house key ${code}?`);
    await expect(privacy.dialog).toHaveCount(0);
    const [got] = await privacyApi.received(privacyApi.localHost, before);
    expect(got).toContain(`spare house key ${code}`);
    await expect(privacy.sentLine(r)).toContainText(`Sent to OpenAI-compatible (${privacyApi.localHost}): 1 memory`);
    expect(await privacy.sentBlock(r)).toBe(got);
    // Stored with the reply: the same after a reload.
    await chat.gotoConversation(await chat.conversationId());
    expect(await privacy.sentBlock(chat.lastReply())).toBe(got);
  });

  test("temporary chat: reads memory, stores nothing (health counts unchanged), shows it is temporary, gone after 24 h or once its tab closes", async ({
    chat,
    chatApi,
    privacy,
    privacyApi,
    api,
    space,
    browser,
    request,
  }) => {
    const code = token();
    await api.addMemory({ text: `The bike lock code ${code} is 4-8-1-5.`, space });
    await privacyApi.persistIdle(); // earlier tests' exchanges are written first
    const before = await api.counts();
    await chat.goto(space);
    await privacy.temporaryToggle.check();
    await expect(privacy.temporaryChip).toContainText("never stores any");
    const r = await chat.send(`What is the bike lock code ${code}?`);
    await expect(chat.replyText(r)).toContainText("Memory block received:"); // it read memory
    await expect(chat.replyText(r)).toContainText("4-8-1-5");
    const id = await chat.conversationId();
    await expect(privacy.temporaryChip).toContainText(
      "Temporary chat: never stored as memory; deleted when this tab closes or at",
    );
    const rem = await chat.send(`/remember my locker ${code} is number 12`);
    await expect(chat.replyText(rem)).toContainText("temporary chat: it never changes memory");
    await expect(chat.conversationById(id)).toHaveCount(0); // not listed

    // An ordinary exchange afterwards is persisted by the same queue; once it is in memory, anything the
    // temporary chat had queued would be too.
    await chat.newChatButton.click();
    await chat.send(`Ordinary note ${code}: the plumber comes on Tuesday.`);
    await chatApi.waitForMemory(space, `plumber Tuesday ${code}`, `plumber comes on Tuesday`);
    await privacyApi.persistIdle();
    const after = await api.counts();
    expect(after).toEqual({
      memories: before.memories + 1,
      vectors: before.vectors + 1,
      fts: before.fts + 1,
      consistent: true,
    });
    expect(
      (await api.search({ query: `locker ${code} bike lock`, space })).results.some((m) =>
        m.content.includes(`locker ${code}`),
      ),
    ).toBe(false);

    // 24 hours later (injected clock) it is gone, page or not.
    privacyApi.setClockOffset(24 * 3600_000 + 60_000);
    await chat.page.goto(`/c/${id}`);
    await expect(chat.page.getByRole("alert").filter({ hasText: "This conversation does not exist" })).toBeVisible();
    privacyApi.setClockOffset(0);

    // Another temporary chat in a tab that then closes: no heartbeat, gone once the lease (2 min) has passed.
    const ctx = await browser.newContext();
    const tab = new ChatPage(await ctx.newPage());
    await tab.goto(space);
    await tab.page.getByRole("checkbox", { name: "Temporary chat" }).check();
    await tab.send("A quick temporary question");
    const tabId = await tab.conversationId();
    const get = () =>
      request.get(`/api/trpc/conversations.get?input=${encodeURIComponent(JSON.stringify({ id: tabId }))}`);
    expect((await get()).status()).toBe(200);
    await ctx.close();
    privacyApi.setClockOffset(3 * 60_000);
    expect((await get()).status()).toBe(404);
  });

  test("memory per conversation: storing off adds no memory; recall off sends none; both shown as chips and kept", async ({
    chat,
    chatApi,
    privacy,
    privacyApi,
    api,
    space,
  }) => {
    const code = token();
    await chat.goto(space);
    await chat.send(`Hello ${code}, starting a conversation about the garden.`);
    await chatApi.waitForMemory(space, `garden ${code}`, `Hello ${code}`);
    const conversationId = await chat.conversationId();
    await privacy.button("Turn storing off").click();
    await expect(privacy.storingOffChip).toHaveText("Storing off");
    await privacyApi.persistIdle();
    const before = await api.counts();
    await chat.send(`The secret greenhouse combination ${code} is 7-7-3.`);

    // Flushed through the queue by an ordinary conversation's exchange (see above).
    await chat.newChatButton.click();
    await chat.send(`Unrelated ${code}: the bins go out on Thursday.`);
    await chatApi.waitForMemory(space, `bins Thursday ${code}`, "bins go out on Thursday");
    await privacyApi.persistIdle();
    expect((await api.counts()).memories).toBe(before.memories + 1);
    expect(
      (await api.search({ query: `greenhouse combination ${code}`, space })).results.some((m) =>
        m.content.includes("greenhouse combination"),
      ),
    ).toBe(false);

    await chat.gotoConversation(conversationId);
    await expect(privacy.storingOffChip).toBeVisible();
    await privacy.button("Turn recall off").click();
    await expect(privacy.recallOffChip).toHaveText("Recall off");
    const since = await privacyApi.requestCount(privacyApi.localHost);
    const r = await chat.send(`What about the garden ${code} and the bins?`);
    await expect(chat.replyText(r)).toContainText("No memory block received.");
    expect(await privacyApi.received(privacyApi.localHost, since)).toEqual([null]);
    await expect(privacy.sentLine(r)).toContainText("recall is off for this conversation");
    await chat.gotoConversation(conversationId);
    await expect(privacy.recallOffChip).toBeVisible();
    await expect(privacy.storingOffChip).toBeVisible();
  });
});
