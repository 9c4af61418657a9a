import OpenAI from "openai";
import { test, expect } from "./chat-fixtures";

/**
 * Memo's OpenAI-compatible endpoint with the official `openai` npm client: memories recalled into the
 * request, forwarded to the configured provider (the test double, which echoes the memory block), and
 * the exchange persisted.
 */

const token = () => Math.random().toString(36).slice(2, 8);

function client(baseURL: string, space?: string): OpenAI {
  return new OpenAI({
    baseURL: `${baseURL}/v1`,
    apiKey: "not-needed",
    maxRetries: 0,
    defaultHeaders: space ? { "x-memo-space": space } : undefined,
  });
}

test.describe("OpenAI-compatible endpoint", () => {
  test("GET /v1/models lists memo and the configured provider's model", async ({ baseURL }) => {
    const models = [];
    for await (const m of client(baseURL!).models.list()) models.push(m.id);
    expect(models).toEqual(expect.arrayContaining(["memo", "openai:fixture-echo"]));
  });

  test("non-streaming: a remembered fact is recalled into the request; the exchange is persisted", async ({
    api,
    chatApi,
    baseURL,
    space,
  }) => {
    const code = token();
    await api.addMemory({ text: `The gate code at the allotment is ${code}-1950.`, space, pinned: true });
    const r = await client(baseURL!, space).chat.completions.create({
      model: "memo",
      messages: [
        { role: "system", content: "You are a gardener's helper." },
        { role: "user", content: "What is the gate code at the allotment?" },
      ],
    });
    expect(r.object).toBe("chat.completion");
    expect(r.model).toBe("fixture-echo");
    const text = r.choices[0]!.message.content!;
    expect(text).toContain("Fixture reply to: What is the gate code at the allotment?");
    expect(text).toContain("Memory block received:");
    expect(text).toContain(`${code}-1950`);
    expect(r.choices[0]!.finish_reason).toBe("stop");
    expect(r.usage?.total_tokens).toBeGreaterThan(0);
    const memo = (r as unknown as { memo: { space: string; recalled: { content: string; match_type: string }[] } })
      .memo;
    expect(memo.space).toBe(space);
    expect(memo.recalled.map((m) => m.content)).toContain(`The gate code at the allotment is ${code}-1950.`);
    const stored = await chatApi.waitForMemory(
      space,
      "gate code allotment",
      /^User: What is the gate code at the allotment\? Assistant: Fixture reply/,
    );
    expect(stored.content).toContain("Fixture reply to:");
  });

  test("streaming, with the space in the body field memo_space", async ({ api, chatApi, baseURL, space }) => {
    const code = token();
    await api.addMemory({ text: `Grandma's birthday is on the ${code} of June.`, space });
    // memo_space: Memo's extension, which space to recall from and remember into
    const body = {
      model: "openai:fixture-echo",
      stream: true as const,
      stream_options: { include_usage: true },
      messages: [{ role: "user" as const, content: "When is Grandma's birthday?" }],
      memo_space: space,
    };
    const stream = await client(baseURL!).chat.completions.create(body);
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      for (const c of chunk.choices) {
        if (c.delta.content) deltas.push(c.delta.content);
        if (c.finish_reason) finish = c.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    expect(deltas.length).toBeGreaterThan(5);
    const text = deltas.join("");
    expect(text).toContain("Fixture reply to: When is Grandma's birthday?");
    expect(text).toContain(`${code} of June`);
    expect(finish).toBe("stop");
    expect(usage).toBeGreaterThan(0);
    await chatApi.waitForMemory(space, "Grandma birthday", /^User: When is Grandma's birthday\? Assistant:/);
  });

  test("errors come back in OpenAI's shape: bad request, unknown provider, provider failure", async ({
    baseURL,
    request,
  }) => {
    const c = client(baseURL!);
    const bad = await c.chat.completions.create({ model: "memo", messages: [] }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/messages must not be empty/);

    const unknown = await c.chat.completions
      .create({ model: "anthropic:claude-x", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");

    const missingModel = await c.chat.completions
      .create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(missingModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missingModel as Error).message).toMatch(/has no model 'no-such-model'/);

    const failing = await c.chat.completions
      .create({ model: "memo", stream: true, messages: [{ role: "user", content: "[fixture:500]" }] })
      .catch((e: unknown) => e);
    expect(failing).toBeInstanceOf(OpenAI.APIError);
    expect((failing as InstanceType<typeof OpenAI.APIError>).status).toBe(502);

    const badSpace = await request.post("/v1/chat/completions", {
      data: { model: "memo", messages: [{ role: "user", content: "hi" }] },
      headers: { "x-memo-space": "no spaces allowed" },
    });
    expect(badSpace.status()).toBe(400);
    expect(await badSpace.json()).toEqual({
      error: {
        message: expect.stringMatching(/space/),
        type: "invalid_request_error",
        param: "memo_space",
        code: "invalid_space",
      },
    });

    const notJson = await request.post("/v1/chat/completions", {
      data: Buffer.from("{nope"),
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status()).toBe(400);
    expect(((await notJson.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });
});
