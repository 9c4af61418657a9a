/**
 * Server-sent events, both ends, with no Node-only APIs (the chat page uses the reader).
 * The chat route sends one JSON object per event: `data: {"type":"delta","text":"…"}`.
 */

/** One SSE frame carrying a JSON value. */
export function sseFrame(data: unknown, event?: string): string {
  const lines = JSON.stringify(data)
    .split("\n")
    .map((l) => `data: ${l}`);
  return `${event ? `event: ${event}\n` : ""}${lines.join("\n")}\n\n`;
}

export interface SseMessage {
  event: string | null;
  data: string;
}

/**
 * Incremental SSE parser: feed it text as it arrives, get complete messages back. Handles \n, \r\n and \r
 * line ends, multi-line data, comments and events split across chunks.
 */
export class SseParser {
  private buf = "";
  private data: string[] = [];
  private event: string | null = null;

  push(chunk: string): SseMessage[] {
    this.buf += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      if (!m) break;
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (m[0] === "\r" && m.index === this.buf.length - 1) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      if (line === "") {
        if (this.data.length) out.push({ event: this.event, data: this.data.join("\n") });
        this.data = [];
        this.event = null;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") this.data.push(value);
      else if (field === "event") this.event = value;
    }
    return out;
  }

  /** The stream ended: a last event without its blank line still counts. */
  end(): SseMessage[] {
    const out = this.push("\n\n");
    this.buf = "";
    return out;
  }
}

/** Read a fetch Response body of server-sent events as parsed JSON values ("[DONE]" ends the stream). */
export async function* readSseJson<T = unknown>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const msgs = done
        ? parser.push(decoder.decode()).concat(parser.end())
        : parser.push(decoder.decode(value, { stream: true }));
      for (const m of msgs) {
        if (m.data === "[DONE]") return;
        yield JSON.parse(m.data) as T;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
