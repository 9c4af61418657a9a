/**
 * The bad-input corpus (issue 8, item 4) over real HTTP (moved down from e2e/bad-input.spec.ts: no page
 * involved): every API — REST /api/v1/*, the chat stream /api/chat, tRPC, the OpenAI-compatible /v1/*, MCP /mcp
 * and the upload endpoint — gets empty and oversized bodies, 10 MB messages, invalid UTF-8, NUL bytes, FTS5
 * syntax, regex and LIKE metacharacters in /forget, negative and huge k, wrong types, unknown spaces and path
 * traversal in ids and file names. Each must get a clear 4xx in the API's own error shape (or, for hostile but
 * valid text, a normal answer) and change nothing: the store's counts, documents, spaces, conversations and
 * tokens are the same before and after each group. The app runs in this process (server/test/app-server.ts:
 * the real start-up, handlers and access gate) with the OpenAI-compatible TEST DOUBLE as its chat provider,
 * as the e2e run configured it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { type AppServer, startAppServer } from "../test/app-server";
import { type BadCase, bigJson, MAX_JSON, MB, nested, raw, runCase } from "../test/bad-input-corpus";
import { HttpApi } from "../test/http-api";

const UUID0 = "00000000-0000-4000-8000-000000000000";
let total = 0;

let app: AppServer;
let api: HttpApi;
let fixture: OpenAIFixtureServer;
before(async () => {
  fixture = await OpenAIFixtureServer.start({ apiKey: "sk-e2e-fixture" });
  app = await startAppServer({
    MEMO_PROVIDER: "openai",
    MEMO_OPENAI_BASE_URL: fixture.url,
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

interface Snapshot {
  memories: number;
  vectors: number;
  fts: number;
  consistent: boolean;
  documents: string[];
  spaces: string[];
  conversations: number;
  tokens: number;
}

async function json(path: string): Promise<any> {
  const res = await api.get(path);
  assert.equal(res.status, 200, path);
  return res.json();
}

async function snapshot(): Promise<Snapshot> {
  const h = (await (await api.get("/api/health")).json()) as { store: Snapshot };
  const docs = (await json("/api/v1/documents")).documents as { id: string; status: string }[];
  const spaces = (await json("/api/trpc/memory.spaces")).result.data as string[];
  const convs = (
    await json(`/api/trpc/conversations.list?input=${encodeURIComponent(JSON.stringify({ limit: 1000 }))}`)
  ).result.data as unknown[];
  const tokens = (await json("/api/trpc/access.tokens")).result.data as unknown[];
  const { memories, vectors, fts, consistent } = h.store;
  return {
    memories,
    vectors,
    fts,
    consistent,
    documents: docs.map((d) => `${d.id}:${d.status}`).sort(),
    spaces: [...spaces].sort(),
    conversations: convs.length,
    tokens: tokens.length,
  };
}

/** Wait until no document is being ingested and no chat exchange is being persisted (earlier groups' work). */
async function quiet(): Promise<Snapshot> {
  let prev = "";
  for (let i = 0; i < 120; i++) {
    const docs = (await json("/api/v1/documents")).documents as { status: string }[];
    const chat = (await json("/api/trpc/chat.status")).result.data as { persist: { pending: number } };
    const s = await snapshot();
    const key = JSON.stringify(s);
    if (
      !docs.some((d) => d.status === "queued" || d.status === "processing") &&
      chat.persist.pending === 0 &&
      key === prev
    )
      return s;
    prev = key;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the app did not settle (ingestion or chat persistence still running)");
}

async function runAll(cases: BadCase[]): Promise<void> {
  const before = await quiet();
  assert.equal(before.consistent, true);
  // Every case runs even when one fails, so a run reports all that is wrong at once.
  const failures: string[] = [];
  for (const c of cases) {
    const title = `${c.method ?? (c.body !== undefined || c.multipart ? "POST" : "GET")} ${c.path.slice(0, 60)} — ${c.name}`;
    try {
      await runCase(app.url, c);
    } catch (e) {
      failures.push(`${title}: ${(e instanceof Error ? e.message : String(e)).split("\n").slice(0, 2).join(" ")}`);
    }
    total++;
  }
  assert.deepEqual(failures, [], `${failures.length} of ${cases.length} cases failed`);
  assert.deepEqual(await snapshot(), before, "nothing changed");
}

/** The same garbage sent to every JSON endpoint. */
const JSON_ENDPOINTS: { path: string; cap: number | null }[] = [
  { path: "/api/v1/memories", cap: MAX_JSON },
  { path: "/api/v1/memories/batch", cap: 16 * MB },
  { path: "/api/v1/search", cap: MAX_JSON },
  { path: "/api/v1/remember", cap: MAX_JSON },
  { path: "/api/v1/forget", cap: MAX_JSON },
  { path: "/api/v1/memories/restore", cap: MAX_JSON },
  { path: "/api/chat", cap: MAX_JSON },
  { path: "/api/v1/import", cap: null }, // 256 MB: not worth sending
  { path: "/api/v1/import/chatgpt", cap: null },
  { path: "/api/v1/import/claude", cap: null },
];

function genericJsonCases(): BadCase[] {
  const out: BadCase[] = [];
  for (const { path, cap } of JSON_ENDPOINTS) {
    const c = (name: string, body: unknown, status: number | number[], message?: RegExp): BadCase => ({
      name,
      api: "rest",
      path,
      body,
      status,
      message,
    });
    out.push(
      c("empty body", Buffer.alloc(0), 400, /body is empty/),
      c("whitespace body", "   \n", 400, /not valid JSON/),
      c("truncated JSON", '{"text": "unterminated', 400, /not valid JSON/),
      c("invalid UTF-8 (Latin-1 é)", raw('{"text":"caf', [0xe9], '"}'), 400, /not valid UTF-8/),
      c(
        "invalid UTF-8 (lone continuation and overlong bytes)",
        raw('{"query":"', [0x80, 0xc0, 0xaf], '"}'),
        400,
        /not valid UTF-8/,
      ),
      c("a raw NUL byte in a string", raw('{"text":"a', [0x00], 'b"}'), 400, /not valid JSON/),
      c("an escaped NUL in a key", '{"\\u0000":1}', 400, /NUL|Unrecognized key|expected|memo export|conversations/),
      // An empty conversations.json is a valid (empty) ChatGPT or Claude export: accepted, nothing to write.
      c("a JSON array", "[]", path.startsWith("/api/v1/import/") ? 202 : 400),
      c("JSON null", "null", 400),
      c("a JSON number", "42", 400),
      c("a JSON string", '"hello"', 400),
      c("JSON nested 100,000 deep", nested(100_000), 400),
    );
    if (cap) out.push(c(`a body over the ${cap / MB} MB cap`, bigJson(cap + 1), 413, /larger than/));
  }
  return out;
}

describe("bad input", { timeout: 120_000 }, () => {
  let space: string;

  before(async () => {
    // A space of our own holding ordinary memories: /forget patterns below must match none of them.
    space = `bad-input-${Date.now().toString(36)}`;
    const res = await api.post("/api/v1/memories/batch", {
      items: ["Rex the dog loves tennis balls", "Tax filing is due April 15", "Pick up milk and bread"].map((text) => ({
        text,
        space,
      })),
    });
    assert.equal(res.status, 201);
  });

  after(() => {
    console.log(`[bad-input] ${total} cases sent by this worker`);
  });

  test("the same garbage on every JSON endpoint", async () => {
    await runAll(genericJsonCases());
  });

  test("POST /api/v1/memories, /batch and /remember: wrong types, limits, NUL, bad spaces", async () => {
    const m = (name: string, body: unknown, status: number, message?: RegExp, path = "/api/v1/memories"): BadCase => ({
      name,
      api: "rest",
      path,
      body,
      status,
      message,
    });
    const tenMb = bigJson(10 * MB, "text", { space });
    await runAll([
      m("a 10 MB memory", tenMb, 413, /larger than/),
      m("text of 100,001 characters", { text: "a".repeat(100_001), space }, 400, /at most 100000 characters/),
      m("blank text", { text: " \t\n ", space }, 400, /text must not be empty/),
      m("an escaped NUL in text", { text: "a\u0000b", space }, 400, /NUL/),
      m("text as a number", { text: 42, space }, 400, /expected string/),
      m("text as an object", { text: { $ne: "" }, space }, 400, /expected string/),
      m("importance as a string", { text: "valid", importance: "high", space }, 400, /importance/),
      m("importance 9", { text: "valid", importance: 9, space }, 400, /importance/),
      m("importance -1", { text: "valid", importance: -1, space }, 400, /importance/),
      m("importance 2.5", { text: "valid", importance: 2.5, space }, 400, /importance/),
      m("pinned as a string", { text: "valid", pinned: "yes", space }, 400, /pinned/),
      m("an unknown kind", { text: "valid", kind: "gossip", space }, 400, /kind/),
      m(
        "timestamp not a date",
        { text: "valid", timestamp: "yesterday-ish", space },
        400,
        /timestamp must be an ISO-8601/,
      ),
      m("timestamp as a huge number", { text: "valid", timestamp: 1e308, space }, 400, /timestamp/),
      m("space with path traversal", { text: "valid", space: "../../etc" }, 400, /space must be 1–64/),
      m("space with a NUL", { text: "valid", space: "personal\u0000" }, 400, /space must be|NUL/),
      m("space of 65 characters", { text: "valid", space: "s".repeat(65) }, 400, /space must be 1–64/),
      m("space with non-ASCII letters", { text: "valid", space: "café" }, 400, /space must be 1–64/),
      m("empty space name", { text: "valid", space: "" }, 400, /space must be 1–64/),
      m("an unknown key", { text: "valid", space, __proto__x: 1 }, 400, /Unrecognized key/),
      m("batch: items empty", { items: [] }, 400, /items must not be empty/, "/api/v1/memories/batch"),
      m(
        "batch: 1001 items",
        { items: Array.from({ length: 1001 }, () => ({ text: "x", space })) },
        400,
        /at most 1000 items/,
        "/api/v1/memories/batch",
      ),
      m("batch: items not an array", { items: "nope" }, 400, /items/, "/api/v1/memories/batch"),
      m(
        "batch: one bad item refuses them all",
        {
          items: [
            { text: "fine one", space },
            { text: "", space },
          ],
        },
        400,
        /items\.1\.text/,
        "/api/v1/memories/batch",
      ),
      m(
        "batch: a NUL in the 3rd item",
        {
          items: [
            { text: "a", space },
            { text: "b", space },
            { text: "c\u0000", space },
          ],
        },
        400,
        /items\.2\.text.*NUL/,
        "/api/v1/memories/batch",
      ),
      m("remember: empty", { text: "", space }, 400, /text must not be empty/, "/api/v1/remember"),
      m("remember: 10 MB", tenMb, 413, /larger than/, "/api/v1/remember"),
      m("remember: NUL", { text: "\u0000", space }, 400, /NUL|empty/, "/api/v1/remember"),
      m("remember: text as an array", { text: ["a"], space }, 400, /expected string/, "/api/v1/remember"),
      m("remember: bad space", { text: "valid", space: "a/b" }, 400, /space must be/, "/api/v1/remember"),
    ]);
  });

  test("POST /api/v1/search: negative and huge k, wrong types, unknown spaces; FTS5 syntax is plain text", async () => {
    const s = (name: string, body: unknown, status: number, message?: RegExp): BadCase => ({
      name,
      api: "rest",
      path: "/api/v1/search",
      body,
      status,
      message,
    });
    const ks: [unknown, RegExp][] = [
      [-1, /k must be at least 1/],
      [0, /k must be at least 1/],
      [101, /k must be at most 100/],
      [1e9, /k must be at most 100/],
      [-1e308, /k must be at least 1|expected int/],
      [1.5, /expected int/],
      ["5", /expected number/],
      [null, /expected number/],
      [true, /expected number/],
      [[5], /expected number/],
    ];
    const fts = [
      `"AND( NEAR *`,
      `NEAR(rex tennis, 2)`,
      `rex OR milk`,
      `"`,
      `*`,
      `-rex`,
      `content:rex`,
      `^rex`,
      `rex AND`,
      `(`,
      `)`,
      `{rex tennis}`,
      `rex + milk`,
      `"unterminated`,
      `rex*`,
      `NOT NOT`,
    ];
    await runAll([
      ...ks.map(([k, msg]) => s(`k = ${JSON.stringify(k)}`, { query: "dog", space, k }, 400, msg)),
      s("empty query", { query: "", space }, 400, /query must not be empty/),
      s("blank query", { query: "   ", space }, 400, /query must not be empty/),
      s("query as a number", { query: 7, space }, 400, /expected string/),
      s("query as an array", { query: ["dog"], space }, 400, /expected string/),
      s("query null", { query: null, space }, 400, /expected string/),
      s("a NUL in the query", { query: "dog\u0000", space }, 400, /NUL/),
      s("query of 8,001 characters", { query: "a".repeat(8001), space }, 400, /at most 8000/),
      s("a 10 MB query", bigJson(10 * MB, "query", { space }), 413, /larger than/),
      s(
        "an unknown space",
        { query: "dog", space: "no-such-space-bad-input" },
        404,
        /space 'no-such-space-bad-input' does not exist/,
      ),
      s("space with path traversal", { query: "dog", space: "../personal" }, 400, /space must be/),
      s("context not an array", { query: "dog", space, context: "we talked" }, 400, /context/),
      s("context of numbers", { query: "dog", space, context: [1, 2] }, 400, /context/),
      s("21 context messages", { query: "dog", space, context: Array(21).fill("x") }, 400, /context/),
      s("a NUL in context", { query: "dog", space, context: ["a\u0000"] }, 400, /NUL/),
      s("pool -1", { query: "dog", space, options: { pool: -1 } }, 400, /pool must be at least 1/),
      s("pool 501", { query: "dog", space, options: { pool: 501 } }, 400, /pool must be at most 500/),
      s("an unknown fusion", { query: "dog", space, options: { fusion: "magic" } }, 400, /fusion/),
      s("an unknown option", { query: "dog", space, options: { dropTables: true } }, 400, /Unrecognized key/),
      s("minSimilarity 2", { query: "dog", space, options: { minSimilarity: 2 } }, 400, /minSimilarity/),
      ...fts.map((q) => s(`FTS5 syntax as plain text: ${q}`, { query: q, space }, 200, /"results":/)),
    ]);
  });

  test("POST /api/v1/forget: regex and LIKE metacharacters are literal text; bad patterns are refused", async () => {
    const f = (name: string, body: unknown, status: number, message?: RegExp): BadCase => ({
      name,
      api: "rest",
      path: "/api/v1/forget",
      body,
      status,
      message,
    });
    // Each would match (and forget) memories of the space if it were a regex, a LIKE or a GLOB pattern.
    const literal = [
      ".*",
      ".+",
      "[a-z]+",
      "(a|e)",
      "a|e",
      "\\w+",
      "^R",
      "s$",
      "%%",
      "_%",
      "%_",
      "Re_",
      "R%",
      "T*",
      "[[:alpha:]]",
      "(?i)rex",
      "\\d",
      "**",
      "?x",
      ".{2}",
    ];
    await runAll([
      ...literal.map((pattern) => f(`literal: ${pattern}`, { pattern, space }, 200, /"count":0/)),
      f("empty pattern", { pattern: "", space }, 400, /at least 2 characters/),
      f("one character", { pattern: "a", space }, 400, /at least 2 characters/),
      f("one character padded with spaces", { pattern: "  a  ", space }, 400, /at least 2 characters/),
      f("1001 characters", { pattern: "a".repeat(1001), space }, 400, /at most 1000/),
      f("a NUL", { pattern: "ab\u0000", space }, 400, /NUL/),
      f("pattern as a number", { pattern: 12, space }, 400, /expected string/),
      f("pattern as a regex object", { pattern: { $regex: ".*" }, space }, 400, /expected string/),
      f("an unknown space", { pattern: "dog", space: "no-such-space-bad-input" }, 404, /does not exist/),
      f("a bad space name", { pattern: "dog", space: "../x" }, 400, /space must be/),
    ]);
  });

  test("ids, documents, jobs, export, import, chat and sign-in routes", async () => {
    const r = (
      name: string,
      method: BadCase["method"],
      path: string,
      status: number,
      message?: RegExp,
      body?: unknown,
    ): BadCase => ({ name, api: "rest", method, path, status, message, body });
    await runAll([
      r("memory id not a UUID", "GET", "/api/v1/memories/not-a-uuid", 400, /UUID/),
      r("memory id with encoded path traversal", "GET", "/api/v1/memories/..%2F..%2Fetc%2Fpasswd", 400, /UUID/),
      r("memory id with an encoded NUL", "GET", "/api/v1/memories/%00", 400, /UUID/),
      r("memory id SQL", "DELETE", "/api/v1/memories/1%27%20OR%20%271%27%3D%271", 400, /UUID/),
      r("unknown memory", "GET", `/api/v1/memories/${UUID0}`, 404, /not found/),
      r("delete an unknown memory", "DELETE", `/api/v1/memories/${UUID0}`, 404, /not found/),
      r("purge an unknown memory", "DELETE", `/api/v1/memories/${UUID0}?purge=true`, 404, /not found/),
      r("restore: ids empty", "POST", "/api/v1/memories/restore", 400, /ids/, { ids: [] }),
      r("restore: ids not UUIDs", "POST", "/api/v1/memories/restore", 400, /ids must be memory ids/, {
        ids: ["../../etc/passwd"],
      }),
      r("restore: ids a string", "POST", "/api/v1/memories/restore", 400, /ids/, { ids: UUID0 }),
      r("restore: 10,001 ids", "POST", "/api/v1/memories/restore", 400, /ids/, { ids: Array(10_001).fill(UUID0) }),
      r("document id not a UUID", "GET", "/api/v1/documents/..%2F..%2Fetc", 400, /UUID/),
      r("unknown document", "GET", `/api/v1/documents/${UUID0}`, 404, /not found|does not exist/),
      r("delete an unknown document", "DELETE", `/api/v1/documents/${UUID0}`, 404),
      r("cancel: id not a UUID", "POST", "/api/v1/documents/x/cancel", 400, /UUID/),
      r("cancel an unknown document", "POST", `/api/v1/documents/${UUID0}/cancel`, 404),
      r("reingest an unknown document", "POST", `/api/v1/documents/${UUID0}/reingest`, 404),
      r("documents of a bad space", "GET", "/api/v1/documents?space=..%2Fx", 400, /space must be/),
      r(
        "documents of an unknown space",
        "GET",
        "/api/v1/documents?space=no-such-space-bad-input",
        404,
        /does not exist/,
      ),
      r("export a bad space", "GET", "/api/v1/export?space=%2Fetc%2Fpasswd", 400, /space must be/),
      r("an unknown job", "POST", "/api/v1/jobs/rm-rf/run", 404, /no job 'rm-rf'/),
      r("job runs: limit -1", "GET", "/api/v1/jobs/runs?limit=-1", 400, /limit must be/),
      r("job runs: limit 1e9", "GET", "/api/v1/jobs/runs?limit=1000000000", 400, /limit must be/),
      r("job runs: limit not a number", "GET", "/api/v1/jobs/runs?limit=ten", 400, /limit must be/),
      r("job runs: an unknown job", "GET", "/api/v1/jobs/runs?job=%27%3B--", 400, /job must be one of/),
      r("import: not an export", "POST", "/api/v1/import?wait=true", 400, undefined, {
        format: "something-else",
        memories: [],
      }),
      r("import: a newer version", "POST", "/api/v1/import?wait=true", 400, /version/, {
        format: "memo-export",
        version: 99,
        memories: [],
      }),
      r("import: a NUL in a memory", "POST", "/api/v1/import?wait=true", 400, /NUL/, {
        format: "memo-export",
        version: 1,
        memories: [{ space, content: "a\u0000b", timestamp: "2024-01-01T00:00:00.000Z" }],
      }),
      r("import: a bad target space", "POST", "/api/v1/import?space=..%2Fx", 400, /space must be/, {
        format: "memo-export",
        version: 1,
        memories: [],
      }),
      r("import ChatGPT: an object, not a list", "POST", "/api/v1/import/chatgpt?wait=true", 400, undefined, {
        conversations: [],
      }),
      r(
        "import ChatGPT: conversations of numbers",
        "POST",
        "/api/v1/import/chatgpt?wait=true",
        400,
        undefined,
        [1, 2, 3],
      ),
      r("chat: empty message", "POST", "/api/chat", 400, /message/, { message: "", space }),
      r("chat: a NUL in the message", "POST", "/api/chat", 400, /NUL/, { message: "hi\u0000", space }),
      r("chat: a 10 MB message", "POST", "/api/chat", 413, /larger than/, bigJson(10 * MB, "message", { space })),
      r("chat: conversationId not a UUID", "POST", "/api/chat", 400, /conversationId/, {
        message: "hi",
        conversationId: "../x",
      }),
      r("chat: an unknown conversation", "POST", "/api/chat", 404, /conversation/, {
        message: "hi",
        conversationId: UUID0,
      }),
      r("chat: an unknown provider", "POST", "/api/chat", 400, /provider/, {
        message: "hi",
        space,
        provider: "skynet",
      }),
      r("chat: a bad space", "POST", "/api/chat", 400, /space must be/, { message: "hi", space: "a b" }),
      r("sign-in: empty password", "POST", "/api/auth/login", 400, /password/, { password: "" }),
      r("sign-in: password as a number", "POST", "/api/auth/login", 400, /password/, { password: 12345678 }),
      r("sign-in: an unknown key", "POST", "/api/auth/login", 400, /Unrecognized key/, { password: "x", admin: true }),
      r("a route that takes POST, sent GET", "GET", "/api/v1/search", 405),
    ]);
  });

  test("uploads: refused requests and path traversal in file names", async () => {
    const u = (
      name: string,
      multipart: BadCase["multipart"],
      status: number,
      message?: RegExp,
      path = "/api/v1/documents",
    ): BadCase => ({ name, api: "rest", path, multipart, status, message });
    const md = "# Notes\n\nA perfectly fine file.\n";
    await runAll([
      {
        name: "JSON instead of multipart",
        api: "rest",
        path: "/api/v1/documents",
        body: { file: "x" },
        status: 400,
        message: /multipart\/form-data/,
      },
      {
        name: "empty body",
        api: "rest",
        path: "/api/v1/documents",
        body: Buffer.alloc(0),
        headers: { "content-type": "multipart/form-data; boundary=x" },
        status: 400,
      },
      {
        name: "garbage after a multipart header",
        api: "rest",
        path: "/api/v1/documents",
        body: raw([0xff, 0xfe, 0x00, 0x01], "garbage"),
        headers: { "content-type": "multipart/form-data; boundary=zzz" },
        status: 400,
      },
      u("no file at all", { fields: { space } }, 400, /no file in the request/),
      u(
        "a file in the wrong field",
        { files: [{ field: "upload", name: "a.md", bytes: md }], fields: { space } },
        400,
        /unexpected file field/,
      ),
      ...[
        "../../etc/passwd.md",
        "..\\..\\windows\\win.ini",
        "notes/../../../../tmp/x.md",
        "/etc/passwd",
        "\\\\server\\share\\x.txt",
        " .. ",
      ].map((name) =>
        u(
          `path traversal in the file name: ${name}`,
          { files: [{ name, bytes: md }], fields: { space } },
          400,
          /path with '\.\.'|absolute path/,
        ),
      ),
      u("a NUL in the file name", { files: [{ name: "a\u0000.md", bytes: md }], fields: { space } }, 400, /NUL/),
      u(
        "a good file next to a traversal name: neither is taken",
        {
          files: [
            { name: "good.md", bytes: md },
            { name: "../evil.md", bytes: md },
          ],
          fields: { space },
        },
        400,
        /path with '\.\.'/,
      ),
      u(
        "a bad space field",
        { files: [{ name: "a.md", bytes: md }], fields: { space: "../etc" } },
        400,
        /space must be/,
      ),
      u(
        "a bad space in the query",
        { files: [{ name: "a.md", bytes: md }] },
        400,
        /space must be/,
        "/api/v1/documents?space=a%20b",
      ),
      u(
        "101 files in one request",
        { files: Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.md`, bytes: `# ${i}\n` })), fields: { space } },
        413,
        /too many files/,
      ),
      u(
        "a form field over 4 KB",
        { files: [{ name: "a.md", bytes: md }], fields: { space: "s".repeat(5000) } },
        400,
        /longer than 4096 bytes/,
      ),
    ]);
  });

  test("uploads: each bad file fails on its own row with the reason, and writes no memory", async () => {
    const before = await quiet();
    const pngHeader = raw([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "rest of an image");
    const files = [
      { name: "empty.md", bytes: Buffer.alloc(0), error: /empty \(0 bytes\)/ },
      { name: "latin1.txt", bytes: raw("caf", [0xe9], " au lait"), error: /not valid UTF-8/ },
      { name: "nul.md", bytes: raw("# a", [0x00, 0x00], "b"), error: /NUL|binary|not .*text/i },
      { name: "photo.pdf", bytes: pngHeader, error: /PNG image, not a PDF/ },
      { name: "broken.pdf", bytes: raw("%PDF-1.7\n", "not really a pdf"), error: /corrupt PDF/ },
    ];
    const B = "----memo-bad-input-files";
    const body = raw(
      ...files.flatMap((f) => [
        `--${B}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        [...f.bytes],
        "\r\n",
      ]),
      `--${B}\r\nContent-Disposition: form-data; name="space"\r\n\r\n${space}\r\n--${B}--\r\n`,
    );
    const res = await api.fetch("/api/v1/documents", {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${B}` },
      body: new Uint8Array(body),
    });
    assert.equal(res.status, 202);
    const rows = ((await res.json()) as { documents: { id: string; name: string; status: string; error?: string }[] })
      .documents;
    assert.deepEqual(
      rows.map((r) => r.name),
      files.map((f) => f.name),
    );
    // Type, size and encoding are checked at upload; a PDF's structure when it is parsed, moments later.
    for (const [i, f] of files.entries()) {
      let row = rows[i]!;
      for (let n = 0; row.status !== "failed" && n < 80; n++) {
        await new Promise((r) => setTimeout(r, 250));
        row = (await (await api.get(`/api/v1/documents/${row.id}`)).json()) as typeof row;
      }
      assert.equal(row.status, "failed", f.name);
      assert.match(row.error ?? "", f.error, f.name);
    }
    total += files.length;
    const afterUpload = await snapshot();
    assert.deepEqual({ ...afterUpload, documents: [] }, { ...before, documents: [] });
    // The failed rows are the only trace; deleting them restores the list exactly.
    for (const r of rows) assert.equal((await api.delete(`/api/v1/documents/${r.id}`)).status, 200);
    assert.deepEqual(await snapshot(), before);
  });

  test("tRPC (/api/trpc): methods, unknown procedures, malformed and hostile input", async () => {
    const q = (proc: string, input: unknown) => `/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify(input))}`;
    const t = (
      name: string,
      method: BadCase["method"],
      path: string,
      status: number,
      message?: RegExp,
      body?: unknown,
    ): BadCase => ({ name, api: "trpc", method, path, status, message, body });
    await runAll([
      t("a mutation sent as GET", "GET", q("memory.add", { text: "x", space }), 405),
      t("a query sent as POST", "POST", "/api/trpc/memory.search", 405, undefined, { query: "dog", space }),
      t("an unknown procedure", "GET", "/api/trpc/admin.dropEverything", 404, /No procedure found/),
      t("malformed input JSON in the URL", "GET", "/api/trpc/memory.search?input=%7B%22query", 400),
      t("search: k -5", "GET", q("memory.search", { query: "dog", space, k: -5 }), 400, /k must be at least 1/),
      t("search: k 1e9", "GET", q("memory.search", { query: "dog", space, k: 1e9 }), 400, /k must be at most 100/),
      t("search: k as a string", "GET", q("memory.search", { query: "dog", space, k: "5" }), 400, /expected number/),
      t("search: a NUL in the query (URL input)", "GET", q("memory.search", { query: "do\u0000g", space }), 400, /NUL/),
      t(
        "search: an unknown space",
        "GET",
        q("memory.search", { query: "dog", space: "no-such-space-bad-input" }),
        404,
        /does not exist/,
      ),
      t(
        "search: FTS5 syntax is plain text",
        "GET",
        q("memory.search", { query: `"AND( NEAR *`, space }),
        200,
        /"results":/,
      ),
      t("add: empty body", "POST", "/api/trpc/memory.add", 400, undefined, Buffer.alloc(0)),
      t(
        "add: invalid UTF-8",
        "POST",
        "/api/trpc/memory.add",
        400,
        /not valid UTF-8/,
        raw('{"text":"caf', [0xe9], '"}'),
      ),
      t("add: a raw NUL byte", "POST", "/api/trpc/memory.add", 400, /NUL/, raw('{"text":"a', [0x00], '"}')),
      t("add: an escaped NUL", "POST", "/api/trpc/memory.add", 400, /NUL/, { text: "a\u0000", space }),
      t(
        "add: a body over 2 MB",
        "POST",
        "/api/trpc/memory.add",
        413,
        /larger than/,
        bigJson(MAX_JSON + 1, "text", { space }),
      ),
      t("add: a 10 MB memory", "POST", "/api/trpc/memory.add", 413, /larger than/, bigJson(10 * MB, "text", { space })),
      t("add: truncated JSON", "POST", "/api/trpc/memory.add", 400, undefined, '{"text": "x'),
      t("add: text as a number", "POST", "/api/trpc/memory.add", 400, /expected string/, { text: 5, space }),
      t("add: an array", "POST", "/api/trpc/memory.add", 400, undefined, [{ text: "x" }]),
      t("forget: a regex matches nothing", "POST", "/api/trpc/memory.forget", 200, /"count":0/, {
        pattern: ".*",
        space,
      }),
      t("forget: one character", "POST", "/api/trpc/memory.forget", 400, /at least 2 characters/, {
        pattern: "x",
        space,
      }),
      t("conversations: rename with a NUL", "POST", "/api/trpc/conversations.rename", 400, /NUL|conversation id/, {
        id: UUID0,
        title: "a\u0000",
      }),
      t(
        "conversations: title of 10,000 characters",
        "POST",
        "/api/trpc/conversations.rename",
        400,
        /title must be at most/,
        { id: UUID0, title: "t".repeat(10_000) },
      ),
      t("conversations: delete a non-id", "POST", "/api/trpc/conversations.delete", 400, /conversation id/, {
        id: "../../x",
      }),
      t("conversations: create in a bad space", "POST", "/api/trpc/conversations.create", 400, /space must be/, {
        space: "../x",
      }),
      t("manager: edit a non-id", "POST", "/api/trpc/manager.edit", 400, undefined, { id: "../x", content: "y" }),
      t("manager: importance 7", "POST", "/api/trpc/manager.setImportance", 400, /importance must be 0–5/, {
        ids: [UUID0],
        importance: 7,
      }),
      t("manager: delete 0 ids", "POST", "/api/trpc/manager.delete", 400, undefined, { ids: [] }),
      t("spaces: create ../etc", "POST", "/api/trpc/spaces.create", 400, /space|name/, { name: "../etc" }),
      t("spaces: delete without confirmation", "POST", "/api/trpc/spaces.delete", 400, undefined, {
        name: space,
        confirm: "nope",
      }),
      t("jobs: run an unknown job", "POST", "/api/trpc/jobs.run", 400, undefined, { job: "rm-rf" }),
      t("retrieval settings: topN -1", "POST", "/api/trpc/retrievalSettings.save", 400, undefined, { topN: -1 }),
      t("retrieval settings: an unknown key", "POST", "/api/trpc/retrievalSettings.save", 400, undefined, {
        evil: true,
      }),
      t("providers: select an unknown provider", "POST", "/api/trpc/providers.select", 400, undefined, {
        provider: "skynet",
      }),
      t(
        "access: a token name with control characters",
        "POST",
        "/api/trpc/access.createToken",
        400,
        /control characters/,
        { name: "a\u0007b" },
      ),
      t("access: an empty token name", "POST", "/api/trpc/access.createToken", 400, /name the token/, { name: "  " }),
      t("access: revoke a non-id", "POST", "/api/trpc/access.revokeToken", 400, /token id/, { id: "../x" }),
      t("access: revoke an unknown token", "POST", "/api/trpc/access.revokeToken", 404, /no live API token/, {
        id: UUID0,
      }),
      t("access: a short password", "POST", "/api/trpc/access.setPassword", 400, /at least 8 characters/, {
        password: "short",
      }),
    ]);
  });

  test("OpenAI-compatible /v1: bodies, types, limits and spaces", async () => {
    const path = "/v1/chat/completions";
    const msg = [{ role: "user", content: "hello" }];
    const o = (
      name: string,
      body: unknown,
      status: number,
      message?: RegExp,
      headers?: Record<string, string>,
    ): BadCase => ({ name, api: "openai", path, body, status, message, headers });
    await runAll([
      o("empty body", Buffer.alloc(0), 400, /body is empty/),
      o("truncated JSON", '{"model":"memo",', 400, /not valid UTF-8 JSON/),
      o(
        "invalid UTF-8",
        raw('{"model":"memo","messages":[{"role":"user","content":"caf', [0xe9], '"}]}'),
        400,
        /not valid UTF-8/,
      ),
      o("a body over 2 MB", bigJson(MAX_JSON + 1, "model"), 413, /larger than/),
      o(
        "a 10 MB message",
        Buffer.from(JSON.stringify({ model: "memo", messages: [{ role: "user", content: "x".repeat(10 * MB) }] })),
        413,
        /larger than/,
      ),
      o("an empty object", {}, 400, /model/),
      o("model empty", { model: "", messages: msg }, 400, /model must not be empty/),
      o("model as a number", { model: 4, messages: msg }, 400, /model/),
      o("messages empty", { model: "memo", messages: [] }, 400, /messages must not be empty/),
      o("messages a string", { model: "memo", messages: "hello" }, 400, /messages/),
      o("an unknown role", { model: "memo", messages: [{ role: "wizard", content: "hi" }] }, 400, /role/),
      o("temperature 5", { model: "memo", messages: msg, temperature: 5 }, 400, /temperature/),
      o("n = 2", { model: "memo", messages: msg, n: 2 }, 400, /n/),
      o("max_tokens -1", { model: "memo", messages: msg, max_tokens: -1 }, 400, /max_tokens/),
      o("max_tokens 1.5", { model: "memo", messages: msg, max_tokens: 1.5 }, 400, /max_tokens/),
      o("stream as a string", { model: "memo", messages: msg, stream: "yes" }, 400, /stream/),
      o(
        "tools (not supported)",
        { model: "memo", messages: msg, tools: [{ type: "function" }] },
        400,
        /tools and functions are not supported/,
      ),
      o("a NUL in a message", { model: "memo", messages: [{ role: "user", content: "hi\u0000" }] }, 400, /NUL/),
      o("space header with path traversal", { model: "memo", messages: msg }, 400, /space/, {
        "x-memo-space": "../personal",
      }),
      o("memo_space with a space", { model: "memo", messages: msg, memo_space: "a b" }, 400, /space/),
      o("an unconfigured provider", { model: "anthropic:claude", messages: msg }, 404, /not configured/),
      { name: "GET on completions", api: "openai", method: "GET", path, status: 405 },
      { name: "POST on models", api: "openai", method: "POST", path: "/v1/models", body: {}, status: 405 },
    ]);
  });

  test("MCP (/mcp): transport garbage is a 4xx; bad tool arguments are tool errors", async () => {
    const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });
    const call = (name: string, args: unknown) => rpc("tools/call", { name, arguments: args });
    const m = (
      name: string,
      body: unknown,
      status: number,
      message?: RegExp,
      headers?: Record<string, string>,
    ): BadCase => ({ name, api: "mcp", path: "/mcp", body, status, message, headers });
    const tool = (name: string, body: unknown, mcpError: RegExp): BadCase => ({
      name,
      api: "mcp",
      path: "/mcp",
      body,
      status: 200,
      mcpError,
    });
    await runAll([
      m("empty body", Buffer.alloc(0), 400, /Parse error|JSON/i),
      m("truncated JSON", '{"jsonrpc":"2.0",', 400, /Parse error/i),
      m(
        "invalid UTF-8",
        raw('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"', [0xe9], '"}}'),
        400,
        /not valid UTF-8/,
      ),
      m(
        "a raw NUL byte",
        raw('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"', [0x00], '"}}'),
        400,
        /NUL/,
      ),
      m("a body over 2 MB", bigJson(MAX_JSON + 1, "jsonrpc"), 413, /larger than/),
      m(
        "a 10 MB remember",
        Buffer.from(JSON.stringify(call("remember", { text: "x".repeat(10 * MB), space }))),
        413,
        /larger than/,
      ),
      m("not JSON-RPC", { hello: "world" }, 400, /Invalid Request|JSON-RPC/i),
      m("an empty batch", [], 400, /Invalid Request|JSON-RPC/i),
      m("JSON-RPC 1.0", { jsonrpc: "1.0", id: 1, method: "tools/list" }, 400, /Invalid Request|JSON-RPC/i),
      m("no Accept header for JSON and SSE", rpc("tools/list", {}), 406, /Not Acceptable|accept/i, {
        accept: "text/html",
      }),
      m("text/plain content type", JSON.stringify(rpc("tools/list", {})), 415, /Unsupported Media Type|Content-Type/i, {
        "content-type": "text/plain",
      }),
      m("an escaped NUL in tool arguments", call("search_memory", { query: "dog\u0000", space }), 400, /NUL/),
      { name: "GET", api: "mcp", method: "GET", path: "/mcp", status: 405, message: /Method not allowed/ },
      { name: "DELETE", api: "mcp", method: "DELETE", path: "/mcp", status: 405, message: /Method not allowed/ },
      tool("an unknown tool", call("drop_all_memories", {}), /drop_all_memories|not found/i),
      tool("remember: empty text", call("remember", { text: "", space }), /text|too_small|at least/i),
      tool("remember: text as a number", call("remember", { text: 5, space }), /text|expected string/i),
      tool(
        "remember: 100,001 characters",
        call("remember", { text: "a".repeat(100_001), space }),
        /text|too_big|at most/i,
      ),
      tool("remember: a bad space", call("remember", { text: "valid", space: "../x" }), /space must be/),
      tool("search: k -1", call("search_memory", { query: "dog", space, k: -1 }), /k|too_small/i),
      tool("search: k 1e9", call("search_memory", { query: "dog", space, k: 1e9 }), /k|too_big/i),
      tool("search: k as a string", call("search_memory", { query: "dog", space, k: "5" }), /k|expected number/i),
      tool("search: empty query", call("search_memory", { query: "", space }), /query|too_small/i),
      tool(
        "search: an unknown space",
        call("search_memory", { query: "dog", space: "no-such-space-bad-input" }),
        /space 'no-such-space-bad-input' does not exist/,
      ),
      tool("forget: one character", call("forget", { pattern: "a", space }), /pattern|too_small|at least/i),
      tool(
        "forget: an unknown space",
        call("forget", { pattern: "dog", space: "no-such-space-bad-input" }),
        /does not exist/,
      ),
      m("forget: a regex matches nothing", call("forget", { pattern: ".*", space }), 200, /"count":0/),
    ]);
  });
});
