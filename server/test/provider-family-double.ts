/**
 * TEST DOUBLES: provider families registered only by tests, to show that a family the code was not written
 * for is picked up from its descriptor (server/chat/providers/families.ts) by every call site — its key and
 * address, its client (streaming, structured output), its health check, fact learning and its Settings form —
 * and never falls through to another family's. Nothing in the product registers them. Their client answers
 * from memory (no network): it echoes the last message, or answers a JSON schema with `{"facts":[]}`.
 */
import type { ProviderFamily } from "../chat/providers/families";
import { registerProviderFamily } from "../chat/providers/families";
import type { ChatMessage, ChatProvider, CompletionResult, GenerateOptions, ProviderId } from "../chat/providers/types";

/** What the doubles were asked, for tests to read. */
export const familyDoubleCalls = { created: [] as string[], healthChecks: [] as string[] };

class EchoProvider implements ChatProvider {
  readonly model = "echo-1";
  constructor(
    readonly id: ProviderId,
    readonly label: string,
  ) {}
  private answer(messages: ChatMessage[], opts?: GenerateOptions): string {
    return opts?.jsonSchema ? '{"facts":[]}' : `echo: ${messages.at(-1)?.content ?? ""}`;
  }
  async *stream(messages: ChatMessage[], opts?: GenerateOptions): AsyncGenerator<string, CompletionResult, undefined> {
    const text = this.answer(messages, opts);
    for (const word of text.split(/(?<= )/)) yield word;
    return { text, model: this.model, finishReason: "stop", usage: null };
  }
  async complete(messages: ChatMessage[], opts?: GenerateOptions): Promise<CompletionResult> {
    return { text: this.answer(messages, opts), model: this.model, finishReason: "stop", usage: null };
  }
  async listModels(): Promise<string[]> {
    return [this.model];
  }
}

function double(
  f: Pick<ProviderFamily, "id" | "label" | "remote" | "settings" | "defaultBaseUrl" | "withoutBaseUrl"> &
    Partial<ProviderFamily>,
): ProviderFamily {
  return {
    configured: () => ({ ok: true, missing: null }),
    explicitlySet: () => false,
    model: () => ({ value: "echo-1", source: "default" }),
    create: () => {
      familyDoubleCalls.created.push(f.id);
      return new EchoProvider(f.id as ProviderId, f.label);
    },
    healthCheck: async (p) => {
      familyDoubleCalls.healthChecks.push(p.id);
    },
    learning: { preferred: false, oneSlot: false },
    modelChoice: true,
    // A form field per declared setting (the key write-only), as a family's own file would list them.
    form: {
      title: `${f.label} endpoint`,
      fields: f.settings.map((s) => ({
        name: s.name,
        label: s.name,
        kind: s.name === "apiKey" ? ("secret" as const) : ("text" as const),
        inputId: `${f.id}-${s.name}`,
      })),
    },
    ...f,
  };
}

export const ACME_FAMILY: ProviderFamily = double({
  id: "acme",
  label: "Acme (test double)",
  remote: true,
  settings: [
    { name: "baseUrl", env: "MEMO_ACME_BASE_URL" },
    { name: "model", env: "MEMO_ACME_MODEL", fallback: () => "echo-1" },
    { name: "apiKey", env: "MEMO_ACME_API_KEY" },
  ],
  defaultBaseUrl: "https://api.acme.test/v2",
  withoutBaseUrl: "default-address",
});

/** A remote family with no default address: until a base URL is set, nothing may go anywhere. */
export const BARE_FAMILY: ProviderFamily = double({
  id: "bare",
  label: "Bare (test double)",
  remote: true,
  settings: [
    { name: "baseUrl", env: "MEMO_BARE_BASE_URL" },
    { name: "apiKey", env: "MEMO_BARE_API_KEY" },
  ],
  defaultBaseUrl: null,
  withoutBaseUrl: "nowhere",
  configured: () => ({ ok: false, missing: "a base URL (MEMO_BARE_BASE_URL)" }),
});

/** A family on this machine that fact learning prefers and that serves one request at a time. */
export const LOOPY_FAMILY: ProviderFamily = double({
  id: "loopy",
  label: "Loopy (test double)",
  remote: false,
  settings: [{ name: "modelPath", env: "MEMO_LOOPY_MODEL" }],
  defaultBaseUrl: null,
  withoutBaseUrl: "nowhere",
  learning: { preferred: true, oneSlot: true },
  modelChoice: false,
});

export function registerTestFamilies(): void {
  registerProviderFamily(ACME_FAMILY);
  registerProviderFamily(BARE_FAMILY);
  registerProviderFamily(LOOPY_FAMILY);
}
