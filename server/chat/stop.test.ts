/**
 * Stop is authoritative (issue 34, item 2), through the real route handlers on a real store with the
 * bundled embedding model, the OpenAI-compatible fixture (TEST DOUBLE, e2e/support/openai-fixture.ts)
 * streaming slowly as the provider:
 *  - POST /api/chat/stop ends the provider request at once (the fixture sees its connection closed);
 *  - the stored reply is exactly the text the page had shown (`shown`), marked stopped, and the stream
 *    ends with a `stopped` event carrying it;
 *  - a stopped exchange is not memory until "Remember this anyway" (keepCutShortExchange) keeps it;
 *  - Stop before the first token stores an empty reply marked stopped, and nothing can be kept of it.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, test } from "node:test";
import { POST as chatRoute } from "../../app/api/chat/route";
import { POST as stopRoute } from "../../app/api/chat/stop/route";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { inflightCount } from "../ops/inflight";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import type { ServiceError } from "../core/errors";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { cutNote, splitCutNote } from "./cut-short";
import { keepCutShortExchange } from "./keep-cut-short";
import { PersistQueue, setPersistQueue } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { registerTurn, stopTurn, TurnControl } from "./turn-control";

for (const k of [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_CHAT_MODEL",
])
  delete process.env[k];

let fixture: OpenAIFixtureServer;
let store: TempStore;
let ctx: MemoContext;
let queue: PersistQueue;

before(async () => {
  fixture = await OpenAIFixtureServer.start();
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

type Ev = { type: string; text?: string; message?: { id: string; content: string }; conversation?: { id: string } };

/** Read SSE events until `enough(events)` (the stream stays open). */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  events: Ev[],
  enough: (events: Ev[]) => boolean,
): Promise<Ev[]> {
  const dec = new TextDecoder();
  let buf = "";
  while (!enough(events)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended early: ${JSON.stringify(events.map((e) => e.type))}`);
    buf += dec.decode(value, { stream: true });
    let at: number;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      for (const line of frame.split("\n")) if (line.startsWith("data: ")) events.push(JSON.parse(line.slice(6)) as Ev);
    }
  }
  return events;
}

const post = (body: unknown) =>
  new Request("http://127.0.0.1/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** Read the stream to its end, as the page does after the last event. */
async function toEnd(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  while (!(await reader.read()).done);
}

/** A deadline, not an expectation: generous, so a busy machine (CI, tests in parallel) does not fail it. */
const DEADLINE_MS = 15_000;

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const memoriesOf = (conversationId: string) =>
  store.sqlite
    .prepare("SELECT content FROM memories WHERE conversation_id = ? AND soft_deleted = 0")
    .all(conversationId) as { content: string }[];

test("Stop mid-stream: the provider request ends at once, the stored reply is exactly what the page showed, marked stopped, and not memory until kept", async () => {
  const before = { ...fixture.streams };
  const turnId = crypto.randomUUID();
  const res = await chatRoute(post({ message: "Count for me [fixture:lines]", space: "stop-mid", turnId }));
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const events = await readUntil(reader, [], (e) => e.filter((x) => x.type === "delta").length >= 8);
  // The page lags the server: it has shown the first six pieces when the person presses Stop.
  const shownText = events
    .filter((e) => e.type === "delta")
    .slice(0, 6)
    .map((e) => e.text)
    .join("");
  assert.match(shownText, /Line 2\n$/);
  const stoppedAt = Date.now();
  const stop = await stopRoute(
    new Request("http://127.0.0.1/api/chat/stop", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ turnId, shown: shownText.length }),
    }),
  );
  assert.deepEqual(await stop.json(), { state: "stopped" });
  await waitFor(() => fixture.streams.abandoned === before.abandoned + 1, DEADLINE_MS, "the provider request to end");
  // At once: long before the stream's own end (32 more lines at 150 ms, 4.8 s), with room for a loaded machine.
  assert.ok(Date.parse(fixture.streams.lastAbandonedAt!) - stoppedAt < 2_000, "the provider saw the Stop at once");
  assert.equal(fixture.streams.completed, before.completed);
  await readUntil(reader, events, (e) =>
    e.some((x) => x.type === "stopped" || x.type === "done" || x.type === "error"),
  );
  const last = events.at(-1)!;
  assert.equal(last.type, "stopped");
  assert.equal(last.message!.content, shownText + cutNote("stopped"));
  await toEnd(reader);
  const conversationId = events.find((e) => e.type === "start")!.conversation!.id;
  const stored = store.sqlite
    .prepare("SELECT id, content FROM messages WHERE conversation_id = ? AND role = 'assistant'")
    .get(conversationId) as { id: string; content: string };
  assert.equal(splitCutNote(stored.content).text, shownText, "stored exactly what the page showed");
  assert.equal(splitCutNote(stored.content).reason, "stopped");
  await waitFor(() => inflightCount() === 0, DEADLINE_MS, "the turn to end");
  await queue.drain();
  assert.deepEqual(memoriesOf(conversationId), [], "a stopped exchange is not memory");

  // "Remember this anyway": the exchange as shown, without the note.
  const kept = await keepCutShortExchange(ctx, stored.id, queue);
  assert.equal(kept.ids.length, 1);
  const mem = memoriesOf(conversationId);
  assert.equal(mem.length, 1);
  assert.match(mem[0]!.content, /^User: Count for me \[fixture:lines\] Assistant: Fixture reply.*Line 2$/s);
  assert.doesNotMatch(mem[0]!.content, /Line 3|interrupted/);
  assert.deepEqual(await keepCutShortExchange(ctx, stored.id, queue), kept, "keeping twice stores it once");
});

test("Stop before the first token: the provider request ends, an empty reply marked stopped is stored, nothing to keep", async () => {
  const before = { ...fixture.streams };
  const turnId = crypto.randomUUID();
  const res = await chatRoute(post({ message: "Think long [fixture:late]", space: "stop-early", turnId }));
  const reader = res.body!.getReader();
  const events = await readUntil(reader, [], (e) => e.some((x) => x.type === "sent"));
  await waitFor(() => fixture.streams.started === before.started + 1, DEADLINE_MS, "the provider request to start");
  assert.equal(stopTurn(turnId, 0), "stopped");
  await readUntil(reader, events, (e) => e.some((x) => x.type === "stopped" || x.type === "done"));
  await toEnd(reader);
  assert.equal(events.filter((e) => e.type === "delta").length, 0);
  const last = events.at(-1)!;
  assert.equal(last.type, "stopped");
  assert.equal(last.message!.content, cutNote("stopped"));
  await waitFor(() => fixture.streams.abandoned === before.abandoned + 1, DEADLINE_MS, "the provider request to end");
  assert.equal(fixture.streams.completed, before.completed);
  await queue.drain();
  const conversationId = events.find((e) => e.type === "start")!.conversation!.id;
  assert.deepEqual(memoriesOf(conversationId), []);
  await assert.rejects(keepCutShortExchange(ctx, last.message!.id, queue), (e: ServiceError) => e.status === 409);
  await waitFor(() => inflightCount() === 0, DEADLINE_MS, "the turn to end");
});

test("a Stop that arrives before its turn registers applies at once: the provider is never asked", async () => {
  const before = { ...fixture.streams };
  const turnId = crypto.randomUUID();
  assert.equal(stopTurn(turnId, 0), "stopped");
  const res = await chatRoute(post({ message: "Never mind [fixture:lines]", space: "stop-first", turnId }));
  const reader = res.body!.getReader();
  const events = await readUntil(reader, [], (e) => e.some((x) => x.type === "stopped"));
  await toEnd(reader);
  assert.equal(events.at(-1)!.message!.content, cutNote("stopped"));
  assert.equal(fixture.streams.started, before.started, "no provider request");
  await waitFor(() => inflightCount() === 0, DEADLINE_MS, "the turn to end");
});

test("turn control: a turn that ended is reported finished; a settled turn cannot be cut; the first reason wins", () => {
  const c = new TurnControl();
  const done = registerTurn("t-finished", c);
  assert.equal(c.settle(), true);
  assert.equal(stopTurn("t-finished", 3), "finished");
  assert.equal(c.reason, null);
  done();
  assert.equal(stopTurn("t-finished", 3), "finished");
  const d = new TurnControl();
  assert.equal(d.cut("reload"), true);
  assert.equal(d.cut("stopped", 5), false);
  assert.equal(d.reason, "reload");
  assert.equal(d.settle(), false);
  assert.equal(d.signal.aborted, true);
});
