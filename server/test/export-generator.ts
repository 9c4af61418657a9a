/**
 * TEST SUPPORT: generated conversation exports in ChatGPT's and Claude's real shapes (the fixtures under
 * server/test/fixtures show the real thing), written to a file one conversation at a time so that a file of
 * hundreds of MB is made in bounded memory. Each exchange's words differ (no two are duplicates). `padding`
 * adds, per conversation, a part the importers leave out (Claude attachments, a ChatGPT tool message) made
 * of many small objects: a large file with few exchanges, whose whole parse would take far more memory.
 */
import fs from "node:fs";

export type ExportShape = "chatgpt" | "claude";

const WORDS =
  "apple river stone cloud garden lamp violin harbor pepper meadow candle orbit bakery tunnel walnut compass ferry glacier".split(
    " ",
  );

/** The words of exchange `n` (distinct for every n). */
export function exchangeWords(n: number, words = 12): string {
  const out: string[] = [];
  let x = n + 1;
  for (let i = 0; i < words; i++) {
    out.push(WORDS[x % WORDS.length]!);
    x = Math.floor(x / WORDS.length) + i * 7 + 3;
  }
  return `${out.join(" ")} #${n}`;
}

/** What exchange `n` says: the person's question and the reply (as the generated files hold them). */
export function exchangeSaid(n: number): { user: string; assistant: string } {
  return { user: `Question ${exchangeWords(n)}?`, assistant: `Answer about ${exchangeWords(n)}.` };
}

function claudeConversation(c: number, first: number, count: number, padding: number): unknown {
  const t = Date.UTC(2024, 0, 1) + c * 60_000;
  const msgs: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const n = first + i;
    const said = exchangeSaid(n);
    msgs.push({ uuid: `m${n}h`, sender: "human", text: said.user, created_at: new Date(t + i * 1000).toISOString() });
    msgs.push({
      uuid: `m${n}a`,
      sender: "assistant",
      text: said.assistant,
      created_at: new Date(t + i * 1000 + 500).toISOString(),
    });
  }
  const conv: Record<string, unknown> = {
    uuid: `conv-${c}`,
    name: `Conversation ${c}`,
    created_at: new Date(t).toISOString(),
    updated_at: new Date(t).toISOString(),
    chat_messages: msgs,
  };
  if (padding) conv.attachments = Array.from({ length: padding }, (_, k) => ({ k, t: "pad" }));
  return conv;
}

function chatGptConversation(c: number, first: number, count: number, padding: number): unknown {
  const t = Date.UTC(2024, 0, 1) / 1000 + c * 60;
  const mapping: Record<string, unknown> = { root: { id: "root", message: null, parent: null, children: [] } };
  let parent = "root";
  const link = (id: string, message: unknown) => {
    mapping[id] = { id, message, parent, children: [] };
    (mapping[parent] as { children: string[] }).children.push(id);
    parent = id;
  };
  if (padding)
    link("tool", {
      author: { role: "tool" },
      content: { content_type: "text", parts: Array.from({ length: padding }, (_, k) => ({ k, t: "pad" })) },
    });
  for (let i = 0; i < count; i++) {
    const n = first + i;
    link(`u${n}`, {
      author: { role: "user" },
      create_time: t + i,
      content: { content_type: "text", parts: [exchangeSaid(n).user] },
      recipient: "all",
    });
    link(`a${n}`, {
      author: { role: "assistant" },
      create_time: t + i + 0.5,
      content: { content_type: "text", parts: [exchangeSaid(n).assistant] },
      recipient: "all",
    });
  }
  return {
    id: `conv-${c}`,
    conversation_id: `conv-${c}`,
    title: `Conversation ${c}`,
    create_time: t,
    mapping,
    current_node: parent,
  };
}

/**
 * Write an export of `exchanges` exchanges, `perConversation` to a conversation, to `file`; returns its size.
 */
export function writeExport(
  file: string,
  shape: ExportShape,
  opts: { exchanges: number; perConversation?: number; padding?: number; from?: number },
): number {
  const per = opts.perConversation ?? 1;
  const fd = fs.openSync(file, "w");
  try {
    fs.writeSync(fd, "[");
    let buf = "";
    const from = opts.from ?? 0;
    for (let c = 0, n = 0; n < opts.exchanges; c++) {
      const count = Math.min(per, opts.exchanges - n);
      const conv =
        shape === "claude"
          ? claudeConversation(c, from + n, count, opts.padding ?? 0)
          : chatGptConversation(c, from + n, count, opts.padding ?? 0);
      buf += (c ? "," : "") + JSON.stringify(conv);
      n += count;
      if (buf.length > 1 << 20) {
        fs.writeSync(fd, buf);
        buf = "";
      }
    }
    fs.writeSync(fd, `${buf}]`);
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}
