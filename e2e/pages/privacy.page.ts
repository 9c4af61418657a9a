import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for the chat page's privacy parts (app/_chat/privacy-chat.tsx, sent-to.tsx) and Settings → Providers' memory sharing. */
export class PrivacyPage {
  readonly memoryBar: Locator;
  readonly temporaryToggle: Locator;
  readonly temporaryChip: Locator;
  readonly recallOffChip: Locator;
  readonly storingOffChip: Locator;
  readonly dialog: Locator;
  readonly sharing: Locator;

  constructor(readonly page: Page) {
    this.memoryBar = page.getByTestId("memory-bar");
    this.temporaryToggle = page.getByRole("checkbox", { name: "Temporary chat" });
    this.temporaryChip = page.getByTestId("temporary-chip");
    this.recallOffChip = page.getByTestId("recall-off-chip");
    this.storingOffChip = page.getByTestId("storing-off-chip");
    this.dialog = page.getByRole("dialog", { name: /^Send recalled memories to / });
    this.sharing = page.getByTestId("memory-sharing");
  }

  button(name: string | RegExp): Locator {
    return this.memoryBar.getByRole("button", { name });
  }

  /** The "Sent to …" line under a reply. */
  sentLine(reply: Locator): Locator {
    return reply.getByTestId("sent-to-line");
  }

  /** The exact memory block sent with a reply's prompt (opens the details). */
  async sentBlock(reply: Locator): Promise<string | null> {
    const details = reply.getByTestId("sent-to");
    await details.locator("summary").click();
    const block = details.getByTestId("sent-block");
    if ((await block.count()) === 0) {
      await expect(details.getByTestId("sent-block-none")).toBeVisible();
      return null;
    }
    return block.innerText();
  }

  sharingSelect(host: string): Locator {
    return this.sharing.getByRole("combobox", { name: new RegExp(`\\(${host.replace(/[.]/g, "\\.")}\\)$`) });
  }
}
