import { test as base, expect } from "./fixtures";
import { ChatPage } from "./pages/chat.page";
import { ProvidersPage } from "./pages/providers.page";
import { ChatApi } from "./support/chat-api";

/**
 * The chat specs' fixtures: the chat page and Settings → Providers (console-watched like the others), and
 * chat API helpers. Any test that changes provider settings gets them reset afterwards, so the app's
 * environment (the OpenAI-compatible test double, see playwright.config.ts) answers the next test.
 */
export const test = base.extend<{ chat: ChatPage; providers: ProvidersPage; chatApi: ChatApi }>({
  chatApi: async ({ request }, use) => {
    const api = new ChatApi(request);
    await use(api);
    await api.resetProviders();
  },
  chat: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new ChatPage(page));
  },
  providers: async ({ page, consoleWatch }, use) => {
    void consoleWatch;
    await use(new ProvidersPage(page));
  },
});

export { expect };
