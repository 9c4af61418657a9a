import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";
import type { ChatPage } from "./pages/chat.page";

/**
 * What you see is what is kept (issue 34, items 1–3), against the OpenAI-compatible test double
 * (e2e/support/openai-fixture.ts: [fixture:lines] streams "Line 1" … "Line 40" 150 ms apart,
 * [fixture:late] waits 4 s before its first token):
 *  - the chat fills the viewport under the first-run checklist, and still when the checklist goes;
 *  - Stop keeps exactly what the page showed, marked stopped, not as memory unless "Remember this anyway";
 *    a reload mid-reply says "interrupted by reload";
 *  - deleting a chat forgets what Memo remembered from it (on by default, undoable), or keeps it.
 * Screenshots in test-results/screenshots/chat-trust-*.png.
 */

const token = () => Math.random().toString(36).slice(2, 8);
const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screenshots/chat-trust-${name}.png` });
/** The fixture's streamed replies to messages containing `tok` (this test's own, whatever else streams meanwhile). */
const fixtureStreams = async (page: Page, tok: string) =>
  (await (
    await page.request.get(
      `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}/__fixture/streams?containing=${encodeURIComponent(tok)}`,
    )
  ).json()) as { started: number; completed: number; abandoned: number };

/** The layout boxes that matter: the composer's bottom edge, the transcript's height, the shell's edges. */
async function layout(chat: ChatPage) {
  const page = chat.page;
  const c = (await chat.composer.boundingBox())!;
  const t = (await chat.scroller.boundingBox())!;
  const s = (await page.getByTestId("chat-shell").boundingBox())!;
  return {
    vh: page.viewportSize()!.height,
    composerBottom: c.y + c.height,
    transcript: t.height,
    shellTop: s.y,
    shellBottom: s.y + s.height,
    pageScrolls: await page.evaluate(() => document.scrollingElement!.scrollHeight > window.innerHeight + 1),
  };
}

const SIZES = [
  { name: "1280", viewport: { width: 1280, height: 800 } },
  { name: "390", viewport: { width: 390, height: 844 } },
] as const;

for (const size of SIZES) {
  test.describe(`Layout at ${size.name} px`, () => {
    test.use({ viewport: size.viewport });
    test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

    test("the chat fills the viewport under the Getting started checklist, and still after it goes", async ({
      chat,
      chatApi,
      space,
      page,
    }) => {
      await chatApi.setChecklistDismissed(false);
      await chat.goto(space);
      const checklist = page.getByTestId("first-run-checklist");
      await expect(checklist).toBeVisible();
      const before = await layout(chat);
      expect(before.vh - before.composerBottom, "composer at the bottom of the viewport").toBeLessThan(4);
      expect(before.vh - before.composerBottom).toBeGreaterThanOrEqual(0);
      expect(before.vh - before.shellBottom, "the chat reaches the bottom").toBeLessThan(2);
      expect(before.transcript, "some transcript under the checklist").toBeGreaterThan(40);
      expect(before.pageScrolls, "the page itself does not scroll").toBe(false);
      const list = (await checklist.boundingBox())!;
      expect(before.shellTop).toBeGreaterThanOrEqual(list.y + list.height - 1);
      await shot(page, `checklist-${size.name}`);

      // The first message makes the conversation (/c/<id>): the checklist goes, the chat takes its place.
      await chat.send(`Layout check ${space}`);
      await expect(checklist).toHaveCount(0);
      await expect(page).toHaveURL(/\/c\//);
      const after = await layout(chat);
      expect(after.vh - after.composerBottom, "composer still at the bottom").toBeLessThan(4);
      expect(after.vh - after.composerBottom).toBeGreaterThanOrEqual(0);
      expect(after.vh - after.shellBottom, "the chat still reaches the bottom").toBeLessThan(2);
      expect(after.shellTop, "the chat moved up into the checklist's place").toBeLessThan(
        before.shellTop - list.height + 1,
      );
      expect(after.transcript - before.transcript, "the transcript grew by the checklist's height").toBeGreaterThan(
        list.height - 2,
      );
      expect(after.pageScrolls).toBe(false);
      await shot(page, `after-checklist-${size.name}`);

      // Nothing was measured: a resize changes nothing about it either.
      await page.setViewportSize({ width: size.viewport.width, height: size.viewport.height - 100 });
      const smaller = await layout(chat);
      expect(smaller.vh - smaller.composerBottom).toBeLessThan(4);
      expect(after.transcript - smaller.transcript).toBeGreaterThan(98);
    });
  });
}

test.describe("Stop and reload", () => {
  test.beforeEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(true)));
  test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

  test("Stop mid-stream: the page keeps what it showed; after a reload the same text, marked stopped, not in memory; Remember this anyway stores it", async ({
    chat,
    chatApi,
    space,
    page,
  }) => {
    const tok = token();
    await chat.goto(space);
    const streamsBefore = await fixtureStreams(page, tok);
    await chat.input.fill(`Count the sheep for ${tok} [fixture:lines]`);
    await chat.sendButton.click();
    const reply = chat.lastReply();
    await expect(chat.replyText(reply)).toContainText("Line 3");
    await chat.stopButton.click();
    await chat.settled(reply);
    await expect(chat.cutShort(reply)).toHaveAttribute("data-reason", "stopped");
    await expect(chat.cutShort(reply)).toContainText("You stopped this reply.");
    const shown = await chat.replyText(reply).innerText();
    const lastLine = /Line (\d+)\s*$/.exec(shown)?.[1];
    expect(lastLine, `the reply ends at a line: ${shown}`).toBeTruthy();
    // The provider request ended; nothing more arrives on the page.
    await expect.poll(async () => (await fixtureStreams(page, tok)).abandoned).toBe(streamsBefore.abandoned + 1);
    expect((await fixtureStreams(page, tok)).completed).toBe(streamsBefore.completed);
    await page.waitForTimeout(600);
    expect(await chat.replyText(reply).innerText()).toBe(shown);
    await shot(page, "stopped-1280");

    const id = await chat.conversationId();
    await page.reload();
    const stored = chat.lastReply();
    await expect(chat.cutShort(stored)).toContainText("You stopped this reply.");
    expect(await chat.replyText(stored).innerText(), "stored text equals what was shown").toBe(shown);
    await expect(chat.replyText(stored)).not.toContainText(`Line ${Number(lastLine) + 1}`);
    const keep = stored.getByRole("button", { name: "Remember this anyway" });
    await expect(keep).toBeVisible();
    await expect(stored.getByTestId("remembered")).toHaveCount(0);
    expect(await chatApi.liveMemories(space)).toEqual([]);

    // A new chat does not recall the stopped exchange.
    await chat.goto(space);
    const asked = await chat.send(`How many sheep did I count for ${tok}?`);
    await expect(chat.replyText(asked)).toContainText("No memory block received.");

    // Kept: stored as the page showed it, and recalled from then on.
    await chat.gotoConversation(id);
    await chat.lastReply().getByRole("button", { name: "Remember this anyway" }).click();
    await expect(chat.lastReply().getByTestId("remembered")).toContainText("Remembered");
    await expect(chat.lastReply().getByRole("button", { name: "Remember this anyway" })).toHaveCount(0);
    const mem = await chatApi.waitForMemory(space, `sheep ${tok}`, `Count the sheep for ${tok}`);
    expect(mem.content).toMatch(new RegExp(`Line ${lastLine}$`));
    expect(mem.content).not.toContain("interrupted");
    await chat.goto(space);
    const again = await chat.send(`Which sheep did I count for ${tok}?`);
    await expect(chat.replyText(again)).toContainText(`Count the sheep for ${tok}`);
  });

  test("Stop before the first token: nothing shown, nothing stored but the mark, the provider request ended", async ({
    chat,
    chatApi,
    space,
    page,
  }) => {
    const tok = token();
    await chat.goto(space);
    const streamsBefore = await fixtureStreams(page, tok);
    await chat.input.fill(`Think hard about ${tok} [fixture:late]`);
    await chat.sendButton.click();
    const reply = chat.lastReply();
    await expect(reply.getByTestId("thinking")).toBeVisible();
    await expect.poll(async () => (await fixtureStreams(page, tok)).started).toBe(streamsBefore.started + 1);
    await chat.stopButton.click();
    await chat.settled(reply);
    await expect(chat.cutShort(reply)).toContainText("You stopped this reply before it began.");
    await expect(chat.replyText(reply)).toHaveCount(0);
    await expect.poll(async () => (await fixtureStreams(page, tok)).abandoned).toBe(streamsBefore.abandoned + 1);
    await shot(page, "stopped-early-1280");
    // Past the fixture's 4 s wait: still nothing, on the page or after a reload.
    await page.waitForTimeout(4_500);
    await expect(chat.replyText(reply)).toHaveCount(0);
    await page.reload();
    await expect(chat.cutShort(chat.lastReply())).toContainText("You stopped this reply before it began.");
    await expect(chat.replyText(chat.lastReply())).toHaveCount(0);
    await expect(chat.lastReply().getByRole("button", { name: "Remember this anyway" })).toHaveCount(0);
    expect(await chatApi.liveMemories(space)).toEqual([]);
    await chat.goto(space);
    const asked = await chat.send(`What was I thinking hard about, ${tok}?`);
    await expect(chat.replyText(asked)).toContainText("No memory block received.");
  });

  test("reloading mid-stream marks the reply interrupted by reload, not stopped", async ({
    chat,
    chatApi,
    space,
    page,
  }) => {
    await chat.goto(space);
    await chat.input.fill(`Count the stars ${token()} [fixture:lines]`);
    await chat.sendButton.click();
    await expect(chat.replyText(chat.lastReply())).toContainText("Line 2");
    const id = await chat.conversationId();
    await page.reload();
    await expect(async () => {
      await chat.gotoConversation(id);
      await expect(chat.cutShort(chat.lastReply())).toHaveAttribute("data-reason", "reload", { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await expect(chat.cutShort(chat.lastReply())).toContainText("Interrupted by reload");
    await expect(chat.cutShort(chat.lastReply())).not.toContainText("You stopped");
    await expect(chat.replyText(chat.lastReply())).toContainText("Line 2");
    await expect(chat.lastReply().getByRole("button", { name: "Remember this anyway" })).toBeVisible();
    expect(await chatApi.liveMemories(space)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(chat.cutShort(chat.lastReply())).toBeInViewport();
    await shot(page, "interrupted-390");
  });
});

test.describe("Deleting a chat", () => {
  test.beforeEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(true)));
  test.afterEach(async ({ chatApi }) => void (await chatApi.setChecklistDismissed(false)));

  test("forgetting (the default) → a new chat does not recall it, Undo brings it back; without forgetting → recalled", async ({
    chat,
    chatApi,
    space,
    page,
  }) => {
    const tok = token();
    const name = `Jumbo${tok}`;
    await chat.goto(space);
    await chat.send(`My daughter's toy is a purple elephant called ${name}.`);
    await chatApi.waitForMemory(space, "purple elephant", name);

    // The dialog, at both sizes.
    const item = chat.conversation(/purple elephant/);
    await item.getByRole("button", { name: /^Delete / }).click();
    await expect(chat.deleteDialog(item)).toContainText("(1 memory)");
    await shot(page, "delete-dialog-1280");
    await item.getByRole("button", { name: "Cancel" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    const drawer = await chat.conversationNav(); // the visible list: the one in the drawer
    const inDrawer = drawer.getByTestId("conversation-item").filter({ hasText: "purple elephant" });
    await inDrawer.getByRole("button", { name: /^Delete / }).click();
    await expect(chat.deleteDialog(inDrawer)).toContainText("(1 memory)");
    await shot(page, "delete-dialog-390");
    await inDrawer.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("button", { name: "Close", exact: true }).click();
    await page.setViewportSize({ width: 1280, height: 800 });

    expect(await chat.deleteWith(/purple elephant/, true)).toBe("(1 memory)");
    await expect(chat.deletedNotice).toContainText("forgot 1 memory from it. Undo is possible for 7 days.");
    await expect(page).toHaveURL(/\/(\?space=.*)?$/);
    const forgotten = await chat.send("What is my daughter's purple elephant toy called?");
    await expect(chat.replyText(forgotten)).not.toContainText(name);
    await shot(page, "deleted-1280");

    await chat.deletedNotice.getByRole("button", { name: "Undo forgetting" }).click();
    await expect(chat.deletedNotice).toContainText("Brought back 1 memory");
    await chat.goto(space);
    const back = await chat.send("What is the purple elephant toy of my daughter called?");
    await expect(chat.replyText(back)).toContainText(name);

    // Kept: deleted without forgetting, still recalled.
    const other = `Kaboo${tok}`;
    await chat.goto(space);
    await chat.send(`The purple elephant lamp in the hall is named ${other}.`);
    await chatApi.waitForMemory(space, "purple elephant lamp", other);
    expect(await chat.deleteWith(/lamp in the hall/, false)).toBe("(1 memory)");
    await expect(chat.deletedNotice).toContainText("is kept");
    await chat.goto(space);
    const kept = await chat.send("What is the purple elephant lamp in the hall named?");
    await expect(chat.replyText(kept)).toContainText(other);
  });

  test("DELETE /api/v1/conversations/:id?forget= : forgets by default, keeps with forget=false, refuses anything else", async ({
    chat,
    chatApi,
    space,
    request,
  }) => {
    await chat.goto(space);
    await chat.send(`Ticket ${token()}: the purple elephant ride opens at nine.`);
    const id = await chat.conversationId();
    await chatApi.waitForMemory(space, "purple elephant ride", "opens at nine");
    expect((await request.delete(`/api/v1/conversations/${id}?forget=maybe`)).status()).toBe(400);
    const r = await request.delete(`/api/v1/conversations/${id}`);
    expect(r.status()).toBe(200);
    const body = (await r.json()) as { forgotten: { count: number; undo: { ids: string[] } } };
    expect(body.forgotten.count).toBe(1);
    expect(await chatApi.liveMemories(space)).toEqual([]);
    const restored = await request.post("/api/v1/memories/restore", { data: { ids: body.forgotten.undo.ids } });
    expect(((await restored.json()) as { restored: string[] }).restored).toEqual(body.forgotten.undo.ids);
    expect(await chatApi.liveMemories(space)).toHaveLength(1);

    await chat.goto(space);
    await chat.send("Keep this one: the purple elephant ride closes at six.");
    const second = await chat.conversationId();
    await chatApi.waitForMemory(space, "purple elephant ride closes", "closes at six");
    const kept = await request.delete(`/api/v1/conversations/${second}?forget=false`);
    expect(((await kept.json()) as { forgotten: unknown }).forgotten).toBeNull();
    expect(await chatApi.liveMemories(space)).toHaveLength(2);
    expect((await request.delete(`/api/v1/conversations/${second}`)).status()).toBe(404);
  });
});
