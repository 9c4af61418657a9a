/**
 * Memo's OpenAI-compatible endpoint over real HTTP with the official `openai` npm client (moved down from
 * e2e/openai-endpoint.spec.ts: no page involved): memories recalled into the request, forwarded to the
 * configured provider (the OpenAI-compatible TEST DOUBLE, e2e/support/openai-fixture.ts, which echoes the
 * memory block), and the exchange persisted. The app runs in this process (server/test/app-server.ts) with the
 * test double as its provider, as the e2e run configures it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { type AppServer, startAppServer } from "../test/app-server";
import { HttpApi, uniqueSpace } from "../test/http-api";

const token = () => Math.random().toString(36).slice(2, 8);

let app: AppServer;
let api: HttpApi;
let fixture: OpenAIFixtureServer;
before(async () => {
  fixture = await OpenAIFixtureServer.start({ apiKey: "sk-e2e-fixture" });
  app = await startAppServer({
    MEMO_PROVIDER: "openai",
    MEMO_OPENAI_BASE_URL: fixture.url, // ends in /v1
    MEMO_OPENAI_MODEL: "fixture-echo",
    MEMO_OPENAI_API_KEY: "sk-e2e-fixture",
    MEMO_PROVIDER_TIMEOUT_SEC: "20",
  });
  api = new HttpApi(app.url);
});
after(async () => {
  await app.close();
  await fixture.close();
});

function client(space?: string): OpenAI {
  return new OpenAI({
    baseURL: `${app.url}/v1`,
    apiKey: "not-needed",
    maxRetries: 0,
    defaultHeaders: space ? { "x-memo-space": space } : undefined,
  });
}

describe("OpenAI-compatible endpoint", () => {
  test("GET /v1/models lists memo and the configured provider's model", async () => {
    const models = [];
    for await (const m of client().models.list()) models.push(m.id);
    for (const id of ["memo", "openai:fixture-echo"]) assert.ok(models.includes(id), `${id} in ${models.join(", ")}`);
  });

  test("non-streaming: a remembered fact is recalled into the request; the exchange is persisted", async (t) => {
    const space = uniqueSpace(t.name);
    const code = token();
    await api.addMemory({ text: `The gate code at the allotment is ${code}-1950.`, space, pinned: true });
    const r = await client(space).chat.completions.create({
      model: "memo",
      messages: [
        { role: "system", content: "You are a gardener's helper." },
        { role: "user", content: "What is the gate code at the allotment?" },
      ],
    });
    assert.equal(r.object, "chat.completion");
    assert.equal(r.model, "fixture-echo");
    const text = r.choices[0]!.message.content!;
    assert.ok(text.includes("Fixture reply to: What is the gate code at the allotment?"), text);
    assert.ok(text.includes("Memory block received:"), text);
    assert.ok(text.includes(`${code}-1950`), text);
    assert.equal(r.choices[0]!.finish_reason, "stop");
    assert.ok((r.usage?.total_tokens ?? 0) > 0);
    const memo = (r as unknown as { memo: { space: string; recalled: { content: string; match_type: string }[] } })
      .memo;
    assert.equal(memo.space, space);
    assert.ok(memo.recalled.map((m) => m.content).includes(`The gate code at the allotment is ${code}-1950.`));
    const stored = await api.waitForMemory(
      space,
      "gate code allotment",
      /^User: What is the gate code at the allotment\? Assistant: Fixture reply/,
    );
    assert.ok(stored.content.includes("Fixture reply to:"));
  });

  test("streaming, with the space in the body field memo_space", async (t) => {
    const space = uniqueSpace(t.name);
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
    const stream = await client().chat.completions.create(body);
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage = 0;
    for await (const chunk of stream) {
      assert.equal(chunk.object, "chat.completion.chunk");
      for (const c of chunk.choices) {
        if (c.delta.content) deltas.push(c.delta.content);
        if (c.finish_reason) finish = c.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    assert.ok(deltas.length > 5, `${deltas.length} pieces`);
    const text = deltas.join("");
    assert.ok(text.includes("Fixture reply to: When is Grandma's birthday?"), text);
    assert.ok(text.includes(`${code} of June`), text);
    assert.equal(finish, "stop");
    assert.ok(usage > 0);
    await api.waitForMemory(space, "Grandma birthday", /^User: When is Grandma's birthday\? Assistant:/);
  });

  test("errors come back in OpenAI's shape: bad request, unknown provider, provider failure", async () => {
    const c = client();
    const bad = await c.chat.completions.create({ model: "memo", messages: [] }).catch((e: unknown) => e);
    assert.ok(bad instanceof OpenAI.BadRequestError, String(bad));
    assert.match(bad.message, /messages must not be empty/);

    const unknown = await c.chat.completions
      .create({ model: "anthropic:claude-x", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    assert.ok(unknown instanceof OpenAI.NotFoundError, String(unknown));
    assert.equal(unknown.code, "model_not_found");

    const missingModel = await c.chat.completions
      .create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    assert.ok(missingModel instanceof OpenAI.NotFoundError, String(missingModel));
    assert.match(missingModel.message, /has no model 'no-such-model'/);

    const failing = await c.chat.completions
      .create({ model: "memo", stream: true, messages: [{ role: "user", content: "[fixture:500]" }] })
      .catch((e: unknown) => e);
    assert.ok(failing instanceof OpenAI.APIError, String(failing));
    assert.equal(failing.status, 502);

    const badSpace = await api.post(
      "/v1/chat/completions",
      { model: "memo", messages: [{ role: "user", content: "hi" }] },
      { "x-memo-space": "no spaces allowed" },
    );
    assert.equal(badSpace.status, 400);
    const badSpaceBody = (await badSpace.json()) as { error: Record<string, unknown> };
    assert.match(String(badSpaceBody.error.message), /space/);
    assert.deepEqual(badSpaceBody, {
      error: {
        message: badSpaceBody.error.message,
        type: "invalid_request_error",
        param: "memo_space",
        code: "invalid_space",
      },
    });

    const notJson = await api.postRaw("/v1/chat/completions", Buffer.from("{nope"));
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { error: { type: string } }).error.type, "invalid_request_error");
  });
});
