import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for the chat page, `/` and `/c/<id>` (app/_chat/*). */
export class ChatPage {
  readonly title: Locator;
  readonly input: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly messages: Locator;
  readonly userMessages: Locator;
  readonly replies: Locator;
  readonly conversations: Locator;
  readonly conversationItems: Locator;
  readonly newChatButton: Locator;
  readonly noProvider: Locator;
  readonly spaceSelect: Locator;
  readonly providerSelect: Locator;
  readonly modelSelect: Locator;

  constructor(readonly page: Page) {
    this.title = page.getByTestId("conversation-title");
    this.input = page.getByRole("textbox", { name: "Message" });
    const form = page.getByRole("form", { name: "Send a message" });
    this.sendButton = form.getByRole("button", { name: "Send" });
    this.stopButton = form.getByRole("button", { name: "Stop" });
    this.messages = page.getByTestId("messages");
    this.userMessages = page.getByTestId("user-message");
    this.replies = page.getByTestId("assistant-message");
    this.conversations = page.getByRole("navigation", { name: "Conversations" });
    this.conversationItems = page.getByTestId("conversation-item");
    this.newChatButton = this.conversations.getByRole("button", { name: "New chat" });
    this.noProvider = page.getByTestId("no-provider");
    this.spaceSelect = page.getByRole("combobox", { name: "Space" });
    this.providerSelect = page.getByRole("combobox", { name: "Provider" });
    this.modelSelect = page.getByRole("combobox", { name: "Model" });
  }

  /** A new conversation (in `space` when given). */
  async goto(space?: string): Promise<void> {
    await this.page.goto(space ? `/?space=${encodeURIComponent(space)}` : "/");
    await expect(this.input).toBeVisible();
    if (space) await expect(this.spaceSelect).toHaveValue(space);
  }

  async gotoConversation(id: string): Promise<void> {
    await this.page.goto(`/c/${id}`);
    await expect(this.input).toBeVisible();
  }

  /** The id in the address bar (/c/<id>), once the first message created the conversation. */
  async conversationId(): Promise<string> {
    await expect(this.page).toHaveURL(/\/c\/[0-9a-f-]{36}$/);
    return this.page.url().split("/c/")[1]!;
  }

  lastReply(): Locator {
    return this.replies.last();
  }

  /** Type a message and send it; resolves when its reply has finished (done or error). */
  async send(text: string, opts: { timeout?: number } = {}): Promise<Locator> {
    const before = await this.replies.count();
    await this.input.fill(text);
    await this.sendButton.click();
    await expect(this.replies).toHaveCount(before + 1);
    const reply = this.replies.nth(before);
    await expect(reply).not.toHaveAttribute("data-status", "streaming", { timeout: opts.timeout ?? 30_000 });
    return reply;
  }

  replyText(reply: Locator): Locator {
    return reply.getByTestId("reply");
  }

  replyError(reply: Locator): Locator {
    return reply.getByTestId("reply-error");
  }

  /** The collapsible "Recalled memories" list under a reply, opened. */
  async openRecalled(reply: Locator): Promise<Locator> {
    const details = reply.getByTestId("recalled");
    await details.locator("summary").click();
    await expect(details.getByTestId("recalled-memory").first()).toBeVisible();
    return details;
  }

  conversation(title: string | RegExp): Locator {
    return this.conversationItems.filter({ has: this.page.getByRole("link", { name: title }) });
  }

  /** The list item of a conversation by id (stays the same element while it is being renamed). */
  conversationById(id: string): Locator {
    return this.page.locator(`[data-testid="conversation-item"][data-id="${id}"]`);
  }

  async rename(title: string | RegExp, to: string): Promise<void> {
    const id = await this.conversation(title).getAttribute("data-id");
    const item = this.conversationById(id!);
    await item.getByRole("button", { name: /^Rename / }).click();
    await item.getByRole("textbox", { name: "New title" }).fill(to);
    await item.getByRole("button", { name: "Save" }).click();
    await expect(this.conversation(to)).toHaveCount(1);
  }

  async delete(title: string | RegExp): Promise<void> {
    const item = this.conversation(title);
    await item.getByRole("button", { name: /^Delete / }).click();
    await item.getByRole("button", { name: "Yes, delete" }).click();
    await expect(this.conversation(title)).toHaveCount(0);
  }
}
