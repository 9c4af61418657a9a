import assert from "node:assert/strict";
import { test } from "node:test";
import { readSseJson, SseParser, sseFrame } from "./sse";

test("frames round-trip through the parser, split anywhere", () => {
  const events = [{ type: "delta", text: "a\nb" }, { type: "done", n: 1 }, { unicode: "héllo ✓" }];
  const wire = events.map((e) => sseFrame(e)).join("");
  for (let cut = 0; cut <= wire.length; cut += 3) {
    const p = new SseParser();
    const got = [...p.push(wire.slice(0, cut)), ...p.push(wire.slice(cut)), ...p.end()].map((m) => JSON.parse(m.data));
    assert.deepEqual(got, events, `cut at ${cut}`);
  }
});

test("CRLF and CR line ends, comments, event names, multi-line data", () => {
  const p = new SseParser();
  const got = p.push(": keep-alive\r\nevent: ping\r\ndata: one\r\ndata: two\r\n\r\ndata:x\r\rdata: last");
  assert.deepEqual(got, [
    { event: "ping", data: "one\ntwo" },
    { event: null, data: "x" },
  ]);
  assert.deepEqual(p.end(), [{ event: null, data: "last" }]);
});

test("readSseJson reads a body of JSON events and stops at [DONE]", async () => {
  const enc = new TextEncoder();
  const wire = `${sseFrame({ a: 1 })}${sseFrame({ b: 2 })}data: [DONE]\n\n${sseFrame({ c: 3 })}`;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      // split inside a multi-byte character too
      const bytes = enc.encode(wire);
      for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
      c.close();
    },
  });
  const out: unknown[] = [];
  for await (const v of readSseJson(body)) out.push(v);
  assert.deepEqual(out, [{ a: 1 }, { b: 2 }]);
});
