/**
 * Streams cut short (issue 8, item 6), through the real route handlers on a real store with the real
 * bundled embedding model, the OpenAI-compatible fixture (TEST DOUBLE, e2e/support/openai-fixture.ts)
 * streaming slowly as the provider:
 *
 *  - a client that disconnects mid-reply from POST /api/chat or a streamed POST /v1/chat/completions
 *    cancels the provider request at once (the fixture sees its connection closed and stops generating);
 *  - the partial exchange is kept as documented in server/chat/cut-short.ts: the reply so far is stored
 *    in the conversation marked "interrupted by reload", and is not memory unless the person keeps it
 *    (a shutdown's partial reply, and the API's, are persisted as memory without the note);
 *  - a graceful shutdown (server/ops/inflight.ts drainRequests) lets requests finish for its grace period,
 *    then stops the rest the same way.
 * The e2e spec e2e/reliability.spec.ts checks the same disconnects over real HTTP through Next.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { POST as chatRoute } from "../../app/api/chat/route";
import { POST as completionsRoute } from "../../app/v1/chat/completions/route";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { drainRequests, inflightCount } from "../ops/inflight";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { checkInvariant } from "../memory/store";
import { PersistQueue, setPersistQueue } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { cutNote } from "./cut-short";
import { keepCutShortExchange } from "./keep-cut-short";

for (const k of [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_CHAT_MODEL",
])
  delete process.env[k];

let fixture: OpenAIFixtureServer;
let store: TempStore;
let ctx: MemoContext;
let queue: PersistQueue;

before(async () => {
  fixture = await OpenAIFixtureServer.start({ chunkMs: 80 });
  store = openTempStore();
  ctx = { db: store.sqlite, embedder: await inProcessEmbedder() };
  saveProviderSettings(store.sqlite, {
    active: "openai",
    openai: { baseUrl: fixture.url, model: FIXTURE_MODEL },
    timeoutSec: 10,
  });
  setAppContext(ctx);
  queue = new PersistQueue(() => ctx, { baseDelayMs: 20, log: () => undefined });
  setPersistQueue(queue);
});
after(async () => {
  setAppContext(undefined);
  setPersistQueue(undefined);
  await fixture.close();
  store.close();
});

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Read SSE `data:` payloads until `enough(payloads)`; returns them (the stream stays open). */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  enough: (events: string[]) => boolean,
): Promise<string[]> {
  const events: string[] = [];
  let buf = "";
  const dec = new TextDecoder();
  while (!enough(events)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended early: ${events.join(" | ")}`);
    buf += dec.decode(value, { stream: true });
    let at: number;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      for (const line of frame.split("\n")) if (line.startsWith("data: ")) events.push(line.slice(6));
    }
  }
  return events;
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

test("POST /api/chat: a client that disconnects mid-reply stops the provider at once; the partial reply is kept, marked interrupted by reload, and is not memory until kept", async () => {
  const before = { ...fixture.streams };
  const res = await chatRoute(
    new Request(
      "http://127.0.0.1/api/chat",
      json({ message: "Tell me the long story of the lighthouse keeper", space: "dc" }),
    ),
  );
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const events = await readUntil(reader, (e) => e.filter((x) => x.includes('"type":"delta"')).length >= 2);
  assert.equal(fixture.streams.started, before.started + 1);
  const cancelledAt = Date.now();
  await reader.cancel(); // what Next does with the response body when the browser goes away
  await waitFor(
    () => fixture.streams.abandoned === before.abandoned + 1,
    2_000,
    "the provider request to be cancelled",
  );
  const stopMs = Date.parse(fixture.streams.lastAbandonedAt!) - cancelledAt;
  assert.ok(stopMs < 500, `the provider saw the disconnect after ${stopMs} ms`);
  assert.equal(fixture.streams.completed, before.completed, "nothing was generated to the end for nobody");
  await waitFor(() => inflightCount() === 0, 2_000, "the turn to finish");
  await queue.drain();
  const conv = JSON.parse(events.find((e) => e.includes('"type":"start"'))!) as { conversation: { id: string } };
  const msgs = store.sqlite
    .prepare("SELECT id, role, content FROM messages WHERE conversation_id = ? ORDER BY created_at")
    .all(conv.conversation.id) as { id: string; role: string; content: string }[];
  assert.deepEqual(
    msgs.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.ok(msgs[1]!.content.startsWith("Fixture reply"));
  assert.ok(msgs[1]!.content.endsWith(cutNote("reload")));
  assert.ok(!msgs[1]!.content.includes("No memory block received"), "only what was generated before the disconnect");
  const memOf = () =>
    store.sqlite.prepare("SELECT content FROM memories WHERE conversation_id = ?").get(conv.conversation.id) as
      | { content: string }
      | undefined;
  assert.equal(memOf(), undefined, "the person did not see it finish: not memory unless kept");
  await keepCutShortExchange(ctx, msgs[1]!.id, queue);
  const mem = memOf()!;
  assert.match(mem.content, /^User: Tell me the long story.*Assistant: Fixture reply/s);
  assert.doesNotMatch(mem.content, /\[interrupted/, "the note stays on the message, not in the memory");
  assert.deepEqual(checkInvariant(store.sqlite), []);
});

test("POST /v1/chat/completions (stream): a disconnect cancels the provider request; what was sent is persisted (without a note)", async () => {
  const before = { ...fixture.streams };
  const res = await completionsRoute(
    new Request(
      "http://127.0.0.1/v1/chat/completions",
      json(
        {
          model: "memo",
          stream: true,
          messages: [{ role: "user", content: "Describe the harbour at dawn in detail" }],
        },
        { "x-memo-space": "dc-v1" },
      ),
    ),
  );
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  await readUntil(reader, (e) => e.filter((x) => x.includes('"content":"')).length >= 3);
  const cancelledAt = Date.now();
  await reader.cancel();
  await waitFor(
    () => fixture.streams.abandoned === before.abandoned + 1,
    2_000,
    "the provider request to be cancelled",
  );
  assert.ok(Date.parse(fixture.streams.lastAbandonedAt!) - cancelledAt < 500);
  assert.equal(fixture.streams.completed, before.completed);
  await waitFor(() => inflightCount() === 0, 2_000, "the request to end");
  await queue.drain();
  const mem = store.sqlite.prepare("SELECT content FROM memories WHERE space_id = 'dc-v1'").get() as
    | { content: string }
    | undefined;
  assert.ok(mem, "the partial exchange became a memory");
  assert.match(mem.content, /^User: Describe the harbour at dawn in detail Assistant: Fixture reply/s);
  assert.doesNotMatch(mem.content, /\[interrupted/);
});

test("graceful shutdown: requests still streaming after the grace period are stopped, their partial replies kept and marked", async () => {
  const before = { ...fixture.streams };
  const res = await chatRoute(
    new Request(
      "http://127.0.0.1/api/chat",
      json({ message: "Recite the whole ship's log, please", space: "dc-stop" }),
    ),
  );
  const reader = res.body!.getReader();
  const events = await readUntil(reader, (e) => e.some((x) => x.includes('"type":"delta"')));
  assert.equal(inflightCount(), 1);
  // the client keeps reading, as a connected browser does
  const rest = readUntil(reader, (e) => e.some((x) => x.includes('"type":"error"') || x.includes('"type":"done"')));
  const t0 = Date.now();
  const drained = await drainRequests(150, 2_000);
  assert.deepEqual(drained, { finished: false, stopped: 1, remaining: 0 });
  assert.ok(Date.now() - t0 < 1_500, `bounded (${Date.now() - t0} ms)`);
  const err = JSON.parse([...events, ...(await rest)].find((x) => x.includes('"type":"error"')) ?? "{}") as {
    kind?: string;
    partial?: { content: string };
  };
  assert.equal(err.kind, "aborted");
  assert.ok(err.partial?.content.endsWith(cutNote("shutdown")));
  await waitFor(
    () => fixture.streams.abandoned === before.abandoned + 1,
    2_000,
    "the provider request to be cancelled",
  );
  await queue.drain();
  assert.equal(
    (store.sqlite.prepare("SELECT count(*) AS n FROM memories WHERE space_id = 'dc-stop'").get() as { n: number }).n,
    1,
  );
});
