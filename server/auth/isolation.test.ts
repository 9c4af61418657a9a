/**
 * Isolation between the people of a household server (issue 32). Person A (the owner) has memories in two
 * spaces, a trashed memory, a conversation with messages, a document and an import job; person B (a
 * member) then calls every route the app serves with A's ids and names:
 *   - every tRPC procedure, found from the app router object (appRouter._def.procedures);
 *   - every REST, /v1 and MCP route handler, found from the app/ file tree (route.ts files and their
 *     exported methods), and every MCP tool, found by asking the MCP route for its tool list.
 * Each must answer B with 404 exactly as for an id that does not exist (same status, same message), or 403,
 * or B's own (empty) data — and never a byte of A's content. A's data is checked intact afterwards.
 * A route without a case here fails the suite: the table of cases is checked against the derived lists.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { TRPCError } from "@trpc/server";
import { setDb } from "../db";
import { runAs } from "../core/acting";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { appRouter, createCaller } from "../api/root";
import { appendMessages } from "../chat/conversations";
import { recallForPrompt } from "../chat/turn-recall";
import { getDocument } from "../ingest/documents";
import { checkInvariant, indexedRids, indexedTotal } from "../memory/store";
import { queueFor } from "../ingest/queue";
import { addProposal } from "../memory/facts/proposals";
import { createRun } from "../memory/facts/runs";
import { addDocument } from "../services/document-service";
import { openTempStore, type TempStore } from "../test/temp-store";
import { routeFiles } from "../test/route-harness";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson } from "./people";
import { hashPassword } from "./password";
import { createApiToken, createSession, setOwnerPasswordHash } from "./store";

const appDir = path.resolve(import.meta.dirname, "../../app");

// A's content: distinctive strings that must never reach B.
const SECRET = {
  personal: "Zanzibar quokka ledger: the safe code is 7719",
  work: "Quillfeather merger closes on the ides, tell nobody",
  trashed: "Marmalade heron diary entry, deleted but restorable",
  title: "Heliotrope planning chat",
  message: "Tangerine submarine secret question",
  doc: "Obsidian lantern manuscript: chapter about the vault",
  docName: "obsidian-lantern.md",
  space: "aspace-quokka",
  imported: "Periwinkle import memory from an old laptop",
  /** In the space A later shares with B: a trashed memory there is A's alone (issue 43). */
  sharedTrashed: "Vermilion abacus note, trashed in the shared space",
  fact: "Zanzibar quokka keeper owns a teal canoe",
  workFact: "Quillfeather board meets on Thursdays",
  deletedFact: "Marmalade heron once nested in the chimney",
  /** A replacement a document of A's proposed (issue 48), waiting on A's What Memo knows. */
  proposal: "Marmalade heron moved to the lighthouse roof",
};
// The space name is not secret: B has (and makes) a space of the same name, which is the point.
// Queries below use a few of A's words, never a whole secret, so that a query echoed back is no false alarm.
const SECRET_VALUES = Object.values(SECRET).filter((s) => s !== SECRET.space);

let store: TempStore;
let memo: MemoContext;
let bId: string;
const A: Record<string, string> = {};
let aHeaders: Record<string, string>;
let bHeaders: Record<string, string>;
let bTokenHeaders: Record<string, string>;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };

const trpcAs = (headers: Record<string, string>) => createCaller({ memo, headers: new Headers(headers) });

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST; // loopback: people existing is what turns sign-in on
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  const fast = { log2N: 10, r: 8, p: 1 };
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", fast));
  const b = createPerson(store.sqlite, {
    name: "B",
    login: "b",
    role: "member",
    passwordHash: await hashPassword("b password 1", fast),
  });
  bId = b.id;
  aHeaders = { cookie: `memo_session=${createSession(store.sqlite, { personId: "owner" }).token}` };
  bHeaders = { cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` };
  bTokenHeaders = { authorization: `Bearer ${createApiToken(store.sqlite, "b script", bId).token}` };

  // ---- A's data, made through A's own session ----
  const a = trpcAs(aHeaders);
  A.memory = (await a.memory.add({ text: SECRET.personal })).ids[0]!;
  A.workMemory = (await a.memory.add({ text: SECRET.work, space: SECRET.space })).ids[0]!;
  A.trashed = (await a.memory.add({ text: SECRET.trashed })).ids[0]!;
  await a.memory.delete({ id: A.trashed });
  A.sharedTrashed = (await a.memory.add({ text: SECRET.sharedTrashed, space: SECRET.space })).ids[0]!;
  await a.memory.delete({ id: A.sharedTrashed });
  const conv = await a.conversations.create({ title: SECRET.title });
  A.conversation = conv.id;
  const msgs = appendMessages(store.sqlite, conv.id, [
    { role: "user", content: SECRET.message },
    { role: "assistant", content: `${SECRET.message}: answered` },
  ]);
  A.userMessage = msgs[0]!.id;
  A.message = msgs[1]!.id;
  A.token = createApiToken(store.sqlite, "a script").id;
  const doc = await runAs({ personId: "owner", admin: true }, () =>
    addDocument(memo, SECRET.docName, new TextEncoder().encode(`# Vault\n\n${SECRET.doc}\n`)),
  );
  A.document = doc.id;
  for (let i = 0; i < 200 && getDocument(store.sqlite, doc.id)?.status !== "done"; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(getDocument(store.sqlite, doc.id)?.status, "done", "A's document is ingested");
  const imp = await rest("POST /api/v1/import", aHeaders, {
    query: "wait=1",
    body: {
      format: "memo-export",
      version: 1,
      exportedAt: "2026-01-01T00:00:00.000Z",
      space: null,
      embeddingModel: null,
      count: 1,
      memories: [
        {
          space: SECRET.space,
          content: SECRET.imported,
          timestamp: "2025-01-01T00:00:00.000Z",
          importance: 1,
          pinned: false,
          kind: "import",
        },
      ],
    },
  });
  assert.equal(imp.status, 200, imp.text);
  A.importJob = (JSON.parse(bodyOf(imp)) as { job: { id: string } }).job.id;
  // A's facts (issue 42): one in each space, and one A deleted (restorable by A only).
  const addFact = async (text: string, source: string, space?: string) => {
    const r = await rest("POST /api/v1/facts", aHeaders, { body: { space, items: [{ text, sources: [source] }] } });
    assert.equal(r.status, 201, r.text);
    return (JSON.parse(bodyOf(r)) as { ids: string[] }).ids[0]!;
  };
  A.fact = await addFact(SECRET.fact, A.memory);
  A.workFact = await addFact(SECRET.workFact, A.workMemory, SECRET.space);
  A.deletedFact = await addFact(SECRET.deletedFact, A.memory);
  await a.facts.delete({ id: A.deletedFact });
  // A's fact-learning run (the back-fill of A's own space; docs/facts.md).
  A.learnRun = createRun(store.sqlite, { kind: "backfill", spaceId: "personal", memories: [] });
  A.proposal = addProposal(store.sqlite, {
    spaceId: "personal",
    runId: A.learnRun,
    jobId: 0,
    text: SECRET.proposal,
    validFrom: "2026-01-01T00:00:00.000Z",
    sources: [A.memory],
    replaces: [A.fact],
  });
});

after(async () => {
  await queueFor(memo).stop?.();
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

// ---- the routes, found from the code ----

const procedures = Object.entries(
  (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures,
).map(([name, p]) => ({ name, type: p._def.type }));

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
async function restRoutes(): Promise<{ key: string; method: string; pattern: string; handler: Handler }[]> {
  const out: { key: string; method: string; pattern: string; handler: Handler }[] = [];
  for (const r of routeFiles()) {
    const mod = (await import(r.file)) as Record<string, unknown>;
    for (const m of METHODS)
      if (typeof mod[m] === "function")
        out.push({ key: `${m} ${r.pattern}`, method: m, pattern: r.pattern, handler: mod[m] as Handler });
  }
  return out;
}

// ---- calling ----

interface Answer {
  status: number;
  /** Headers and body as text (REST), or the result or error (tRPC). */
  text: string;
}
const bodyOf = (a: Answer) => a.text.slice(a.text.indexOf("\n\n") + 2);

async function rest(
  key: string,
  headers: Record<string, string>,
  opts: { params?: Record<string, string>; body?: unknown; query?: string; contentType?: string } = {},
): Promise<Answer> {
  const [method, pattern] = key.split(" ") as [string, string];
  const file = routeFiles().find((r) => r.pattern === pattern)!;
  const mod = (await import(file.file)) as Record<string, Handler>;
  const url = `http://127.0.0.1:3000${pattern.replace(/\[(\w+)\]/g, (_, k: string) => opts.params?.[k] ?? "x")}${opts.query ? `?${opts.query}` : ""}`;
  const body =
    opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  const req = new Request(url, {
    method,
    headers: {
      host: "127.0.0.1:3000",
      accept: "application/json, text/event-stream",
      ...(body !== undefined ? { "content-type": opts.contentType ?? "application/json" } : {}),
      ...headers,
    },
    body,
  });
  const res = await mod[method]!(req, { params: Promise.resolve(opts.params ?? {}) });
  const hdrs = [...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
  return { status: res.status, text: `${hdrs}\n\n${await res.text()}` };
}

async function trpc(name: string, headers: Record<string, string>, input: unknown): Promise<Answer> {
  const caller = trpcAs(headers) as unknown as Record<string, Record<string, (i: unknown) => Promise<unknown>>>;
  const [r, p] = name.split(".") as [string, string];
  try {
    return { status: 200, text: JSON.stringify((await caller[r]![p]!(input)) ?? null) };
  } catch (e) {
    if (!(e instanceof TRPCError)) throw e;
    const status = { NOT_FOUND: 404, FORBIDDEN: 403, BAD_REQUEST: 400, CONFLICT: 409 }[e.code as string] ?? 500;
    return { status, text: `${e.code}: ${e.message}` };
  }
}

function assertNoLeak(where: string, a: Answer): void {
  for (const s of SECRET_VALUES) assert.ok(!a.text.includes(s), `${where} showed B "${s}": ${a.text.slice(0, 400)}`);
  // A's own ids that B did not send (B's own input echoed back in a "not found" is no leak).
  for (const [k, id] of Object.entries(A))
    if (k === "token") assert.ok(!a.text.includes(id), `${where} showed B A's token id`);
}

/** 404 exactly as for an id that does not exist: the same status and message (with the id swapped). */
async function assertLikeMissing(where: string, call: (id: string) => Promise<Answer>, id: string): Promise<void> {
  const real = await call(id);
  const fake = crypto.randomUUID();
  const missing = await call(fake);
  assertNoLeak(where, real);
  // 404; or 403 whatever the id (a procedure an API token may not call at all).
  assert.ok(
    real.status === 404 || (real.status === 403 && missing.status === 403),
    `${where}: ${real.text.slice(0, 300)}`,
  );
  const norm = (a: Answer, x: string) =>
    a.text
      .split(x)
      .join("<id>")
      .replace(/^date: .*$/gm, "");
  assert.equal(norm(real, id), norm(missing, fake), `${where}: A's id answers unlike a missing one`);
}

// ---- the cases: one per derived route ----

type IdKey = keyof typeof A & string;
type Case =
  | { kind: "missing"; id: IdKey; input: (id: string) => unknown }
  | { kind: "forbidden"; input?: unknown }
  /** Succeeds (or fails) on B's own data; `input` names A's things where the route takes any. */
  | { kind: "own"; input?: () => unknown; why: string };

const uuid = () => crypto.randomUUID();
const TRPC: Record<string, Case> = {
  "memory.add": {
    kind: "own",
    input: () => ({ text: "b's own note", space: SECRET.space }),
    why: "writes to B's own space of that name",
  },
  "memory.addBatch": {
    kind: "own",
    input: () => ({ items: [{ text: "b's batch note", space: SECRET.space }] }),
    why: "B's own space",
  },
  "memory.search": {
    kind: "own",
    input: () => ({ query: "Zanzibar quokka ledger safe code" }),
    why: "searches B's spaces only",
  },
  "memory.remember": {
    kind: "own",
    input: () => ({ text: "b remembers this", space: SECRET.space }),
    why: "B's own space",
  },
  "memory.forget": { kind: "own", input: () => ({ pattern: "Zanzibar", preview: true }), why: "B's own space" },
  "memory.restore": {
    kind: "own",
    input: () => ({ ids: [A.trashed] }),
    why: "restores only B's memories: A's stays in the trash",
  },
  "memory.delete": { kind: "missing", id: "memory", input: (id) => ({ id }) },
  "memory.spaces": { kind: "own", why: "B's spaces" },
  "documents.list": { kind: "own", why: "B's documents" },
  "documents.get": { kind: "missing", id: "document", input: (id) => ({ id }) },
  "documents.cancel": { kind: "missing", id: "document", input: (id) => ({ id }) },
  "documents.delete": { kind: "missing", id: "document", input: (id) => ({ id }) },
  "documents.reingest": { kind: "missing", id: "document", input: (id) => ({ id }) },
  "documents.restore": { kind: "missing", id: "document", input: (id) => ({ id }) },
  "documents.limits": { kind: "own", why: "the server's upload limits and how long ingesting takes here" },
  "health.get": { kind: "own", why: "B's own counts and the model, no content (checked below)" },
  "jobs.run": { kind: "forbidden", input: { job: "decay" } },
  "jobs.previewConsolidation": { kind: "forbidden" },
  "jobs.applyConsolidation": { kind: "forbidden", input: { runId: 1 } },
  "jobs.undoRun": { kind: "forbidden", input: { runId: 1 } },
  "jobs.runs": { kind: "forbidden" },
  "jobs.status": { kind: "own", why: "schedule and lease holders, no content" },
  "jobs.settings": { kind: "forbidden" },
  "jobs.saveSettings": { kind: "forbidden", input: {} },
  "jobs.lifetime": { kind: "own", why: "B's own lifetime rules (a personal setting)" },
  "jobs.saveLifetime": { kind: "own", input: () => ({ idleDays: 3 }), why: "B's own lifetime rules" },
  "manager.list": { kind: "own", input: () => ({ status: "all" }), why: "B's memories" },
  "manager.get": { kind: "missing", id: "memory", input: (id) => ({ id }) },
  "manager.edit": { kind: "missing", id: "memory", input: (id) => ({ id, content: "overwritten by b" }) },
  "manager.setPinned": { kind: "missing", id: "memory", input: (id) => ({ ids: [id], pinned: true }) },
  "manager.setImportance": { kind: "missing", id: "memory", input: (id) => ({ ids: [id], importance: 0 }) },
  "manager.delete": { kind: "missing", id: "memory", input: (id) => ({ ids: [id] }) },
  "manager.restore": { kind: "missing", id: "trashed", input: (id) => ({ ids: [id] }) },
  "manager.purge": { kind: "missing", id: "memory", input: (id) => ({ ids: [id] }) },
  "manager.imports": { kind: "own", why: "B's import jobs" },
  "manager.cancelImport": { kind: "missing", id: "importJob", input: (id) => ({ id, forget: true }) },
  "analytics.overview": { kind: "own", input: () => ({}), why: "B's counts" },
  "analytics.lifetime": { kind: "own", why: "B's memories" },
  "analytics.keep": { kind: "own", input: () => ({ ids: [A.trashed] }), why: "keeps only B's memories" },
  "spaces.list": { kind: "own", why: "B's spaces" },
  "spaces.create": { kind: "own", input: () => ({ name: SECRET.space }), why: "B's own space of that name" },
  "spaces.rename": {
    kind: "own",
    input: () => ({ from: "personal", to: "renamed-by-b" }),
    why: "renames B's own default? refused: default",
  },
  "spaces.delete": {
    kind: "own",
    input: () => ({ name: SECRET.space, confirm: SECRET.space }),
    why: "deletes B's own space of that name",
  },
  "spaces.shares": { kind: "own", why: "what B shares and what is shared with B (nothing of A's until A shares)" },
  "spaces.share": {
    kind: "own",
    input: () => ({ space: SECRET.space, person: "b", mode: "write" }),
    why: "names B's own space of that name (B cannot share A's), and sharing with oneself is refused",
  },
  "spaces.unshare": {
    kind: "own",
    input: () => ({ space: SECRET.space, person: "owner" }),
    why: "B's own space of that name",
  },
  "spaces.shareNotices": { kind: "own", why: "the shares with B that B has not seen (none of A's until A shares)" },
  "spaces.dismissShareNotice": {
    kind: "own",
    input: () => ({ space: "owner~personal" }),
    why: "A's space not shared with B: 404 'not shared with you', as for one that does not exist",
  },
  "retrievalSettings.get": { kind: "own", why: "B's settings" },
  "retrievalSettings.save": { kind: "own", input: () => ({}), why: "B's settings" },
  "retrievalSettings.reset": { kind: "own", why: "B's settings" },
  "chat.status": { kind: "own", why: "providers without keys" },
  "chat.confirmForget": { kind: "missing", id: "message", input: (id) => ({ messageId: id, confirm: true }) },
  "chat.keepExchange": { kind: "missing", id: "message", input: (id) => ({ messageId: id }) },
  "chat.undoForget": { kind: "missing", id: "message", input: (id) => ({ messageId: id }) },
  "conversations.list": { kind: "own", why: "B's conversations" },
  "conversations.get": { kind: "missing", id: "conversation", input: (id) => ({ id }) },
  "conversations.create": { kind: "own", input: () => ({}), why: "B's own conversation" },
  "conversations.rename": { kind: "missing", id: "conversation", input: (id) => ({ id, title: "renamed by b" }) },
  "conversations.delete": { kind: "missing", id: "conversation", input: (id) => ({ id }) },
  "conversations.deletePreview": { kind: "missing", id: "conversation", input: (id) => ({ id }) },
  "conversations.search": { kind: "own", input: () => ({ query: "Tangerine" }), why: "B's conversations" },
  "conversations.pin": { kind: "missing", id: "conversation", input: (id) => ({ id, pinned: true }) },
  "conversations.exportMarkdown": { kind: "missing", id: "conversation", input: (id) => ({ id }) },
  "conversations.spaces": { kind: "missing", id: "conversation", input: (id) => ({ id }) },
  "conversations.setSpaces": { kind: "missing", id: "conversation", input: (id) => ({ id, spaces: [] }) },
  "conversations.remembered": { kind: "missing", id: "message", input: (id) => ({ messageId: id }) },
  "providers.status": { kind: "forbidden" },
  "providers.save": { kind: "forbidden", input: {} },
  "providers.reset": { kind: "forbidden" },
  "providers.select": { kind: "forbidden", input: { provider: "anthropic" } },
  "providers.models": { kind: "forbidden", input: { provider: "openai" } },
  "providers.test": { kind: "forbidden", input: {} },
  "access.status": { kind: "own", why: "the mode Memo runs in" },
  "access.tokens": { kind: "own", why: "B's tokens" },
  "access.createToken": { kind: "own", input: () => ({ name: "b's second" }), why: "B's token" },
  "access.revokeToken": { kind: "missing", id: "token", input: (id) => ({ id }) },
  "access.setPassword": { kind: "forbidden", input: { current: "x", password: "a new password" } },
  "access.signOutEverywhere": { kind: "forbidden" },
  "access.changeMyPassword": {
    kind: "own",
    input: () => ({ current: "not it", password: "whatever 123" }),
    why: "B's own password (wrong current: refused)",
  },
  "access.me": { kind: "own", why: "who B is" },
  "setup.status": { kind: "own", why: "B's checklist" },
  "setup.setChecklistDismissed": { kind: "own", input: () => ({ dismissed: true }), why: "B's checklist" },
  "setup.retryDownload": { kind: "forbidden" },
  "setup.setDetection": { kind: "forbidden", input: { enabled: false } },
  "setup.recheckDetection": { kind: "forbidden" },
  "setup.preferDetected": { kind: "forbidden", input: { port: 8080 } },
  "setup.useDetected": { kind: "forbidden", input: { port: 8080 } },
  "setup.useLocalModel": { kind: "forbidden", input: { path: "/x.gguf" } },
  "privacy.status": { kind: "own", why: "B's sharing choices" },
  "privacy.setSharing": {
    kind: "own",
    input: () => ({ key: "openai@api.openai.com", mode: "off" }),
    why: "B's choice",
  },
  "privacy.setTemporaryReadsMemory": { kind: "own", input: () => ({ read: false }), why: "B's choice" },
  "privacy.setConversationMemory": { kind: "missing", id: "conversation", input: (id) => ({ id, recall: false }) },
  "privacy.heartbeat": { kind: "missing", id: "conversation", input: (id) => ({ id }) },
  "facts.list": {
    kind: "own",
    input: () => ({ q: "Zanzibar quokka canoe", space: SECRET.space, history: true }),
    why: "B's own space of that name",
  },
  "facts.history": { kind: "missing", id: "fact", input: (id) => ({ id }) },
  "facts.sources": { kind: "missing", id: "fact", input: (id) => ({ id }) },
  "facts.edit": { kind: "missing", id: "fact", input: (id) => ({ id, text: "overwritten by b" }) },
  "facts.confirm": { kind: "missing", id: "fact", input: (id) => ({ id }) },
  "facts.delete": { kind: "missing", id: "fact", input: (id) => ({ id }) },
  "facts.restore": { kind: "missing", id: "deletedFact", input: (id) => ({ id }) },
  "facts.summary": { kind: "own", why: "B's own counts of facts" },
  "facts.proposals": { kind: "own", why: "B's own proposals (none): A's are in A's spaces" },
  "facts.acceptProposal": { kind: "missing", id: "proposal", input: (id) => ({ id }) },
  "facts.dismissProposal": { kind: "missing", id: "proposal", input: (id) => ({ id }) },
  "facts.decideProposals": { kind: "missing", id: "proposal", input: (id) => ({ ids: [id], decision: "accept" }) },
  "learning.undo": { kind: "missing", id: "learnRun", input: (id) => ({ id }) },
  "learning.status": { kind: "own", why: "B's own queue and calls (the provider switches hold no content)" },
  "learning.setProvider": {
    kind: "own",
    input: () => ({ key: "openai@api.openai.com", on: true }),
    why: "B's own switch, like memory sharing: it decides learning from B's memory only (issue 48)",
  },
  "unkeptSettings.list": {
    kind: "own",
    why: "what could not be kept of B's own personal settings (A's are A's), the household's only for an admin",
  },
  "unkeptSettings.dismiss": {
    kind: "own",
    input: () => ({ key: "privacy" }),
    why: "B's own notice: a personal setting's key is B's (storedKey), never A's",
  },
  "learning.count": { kind: "missing", id: "document", input: (id) => ({ kind: "document", target: id }) },
  "learning.start": { kind: "missing", id: "document", input: (id) => ({ kind: "document", target: id }) },
  "learning.runs": { kind: "own", why: "B's own runs" },
  "learning.run": { kind: "missing", id: "learnRun", input: (id) => ({ id }) },
  "learning.stop": { kind: "missing", id: "learnRun", input: (id) => ({ id }) },
  "learning.reply": { kind: "missing", id: "message", input: (id) => ({ messageId: id }) },
  "learning.undoFact": { kind: "missing", id: "message", input: (id) => ({ messageId: id, factId: uuid() }) },
};

interface RestCase {
  kind: "missing" | "forbidden" | "own";
  id?: IdKey;
  /** The request for an id (missing) or A's names (own/forbidden). */
  req: (id: string) => { params?: Record<string, string>; body?: unknown; query?: string };
  why?: string;
}
const REST: Record<string, RestCase> = {
  "POST /api/auth/login": {
    kind: "own",
    req: () => ({ body: { login: "owner", password: "wrong wrong" } }),
    why: "public: a wrong password",
  },
  "POST /api/auth/logout": { kind: "own", req: () => ({}), why: "ends B's own session" },
  "POST /api/chat": {
    kind: "missing",
    id: "conversation",
    req: (id) => ({ body: { conversationId: id, message: "hello" } }),
  },
  "POST /api/chat/stop": {
    kind: "own",
    req: () => ({ body: { turnId: uuid(), shown: 0 } }),
    why: "turn ids are secrets of the page that made them",
  },
  "GET /api/health": { kind: "own", req: () => ({}), why: "liveness and B's own counts (checked below)" },
  "GET /api/trpc/[trpc]": {
    kind: "own",
    req: () => ({ params: { trpc: "memory.spaces" } }),
    why: "the tRPC endpoint; its procedures are checked one by one",
  },
  "POST /api/trpc/[trpc]": {
    kind: "own",
    req: () => ({ params: { trpc: "memory.search" }, body: { query: "Zanzibar quokka safe code" } }),
    why: "as above",
  },
  "DELETE /api/v1/conversations/[id]": { kind: "missing", id: "conversation", req: (id) => ({ params: { id } }) },
  "GET /api/v1/documents": { kind: "own", req: () => ({}), why: "B's documents" },
  "POST /api/v1/documents": {
    kind: "own",
    req: () => ({ body: "", query: `space=${SECRET.space}` }),
    why: "B's own space (no file: 400)",
  },
  "GET /api/v1/documents/[id]": { kind: "missing", id: "document", req: (id) => ({ params: { id } }) },
  "DELETE /api/v1/documents/[id]": { kind: "missing", id: "document", req: (id) => ({ params: { id } }) },
  "POST /api/v1/documents/[id]/cancel": { kind: "missing", id: "document", req: (id) => ({ params: { id } }) },
  "POST /api/v1/documents/[id]/reingest": { kind: "missing", id: "document", req: (id) => ({ params: { id } }) },
  "POST /api/v1/documents/[id]/restore": { kind: "missing", id: "document", req: (id) => ({ params: { id } }) },
  "GET /api/v1/export": { kind: "own", req: () => ({}), why: "B's memories" },
  "POST /api/v1/forget": {
    kind: "own",
    req: () => ({ body: { pattern: "Zanzibar", preview: true } }),
    why: "B's space",
  },
  "POST /api/v1/import": {
    kind: "own",
    req: () => ({ body: { format: "memo-export", version: 1, memories: [] } }),
    why: "into B's spaces",
  },
  "POST /api/v1/import/[format]": {
    kind: "own",
    req: () => ({ params: { format: "chatgpt" }, body: [] }),
    why: "into B's spaces",
  },
  "GET /api/v1/import/jobs": { kind: "own", req: () => ({}), why: "B's import jobs" },
  "GET /api/v1/import/jobs/[id]": { kind: "missing", id: "importJob", req: (id) => ({ params: { id } }) },
  "POST /api/v1/import/jobs/[id]/cancel": {
    kind: "missing",
    id: "importJob",
    req: (id) => ({ params: { id }, query: "forget=true" }),
  },
  "POST /api/v1/jobs/[job]/run": { kind: "forbidden", req: () => ({ params: { job: "decay" } }) },
  "GET /api/v1/jobs/runs": { kind: "forbidden", req: () => ({}) },
  "POST /api/v1/jobs/runs/[id]/undo": { kind: "forbidden", req: () => ({ params: { id: "1" } }) },
  "POST /api/v1/memories": {
    kind: "own",
    req: () => ({ body: { text: "b's rest note", space: SECRET.space } }),
    why: "B's space",
  },
  "GET /api/v1/memories/[id]": { kind: "missing", id: "memory", req: (id) => ({ params: { id } }) },
  "DELETE /api/v1/memories/[id]": { kind: "missing", id: "memory", req: (id) => ({ params: { id } }) },
  "POST /api/v1/memories/batch": {
    kind: "own",
    req: () => ({ body: { items: [{ text: "b batch rest" }] } }),
    why: "B's space",
  },
  "POST /api/v1/memories/restore": {
    kind: "own",
    req: () => ({ body: { ids: [A.trashed] } }),
    why: "restores only B's memories",
  },
  "POST /api/v1/remember": { kind: "own", req: () => ({ body: { text: "b remembers via rest" } }), why: "B's space" },
  "POST /api/v1/search": {
    kind: "own",
    req: () => ({ body: { query: "Quillfeather merger ides", space: SECRET.space } }),
    why: "B's space of that name",
  },
  "GET /api/v1/people": { kind: "forbidden", req: () => ({}) },
  "POST /api/v1/people": {
    kind: "forbidden",
    req: () => ({ body: { name: "x", login: "x", password: "password x1" } }),
  },
  "PATCH /api/v1/people/[id]": {
    kind: "forbidden",
    req: () => ({ params: { id: "owner" }, body: { disabled: true } }),
  },
  "DELETE /api/v1/people/[id]": { kind: "forbidden", req: () => ({ params: { id: "owner" } }) },
  "POST /api/v1/tokens": { kind: "own", req: () => ({ body: { name: "b rest token" } }), why: "B's token" },
  "POST /mcp": {
    kind: "own",
    req: () => ({ body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }),
    why: "tools are checked one by one below",
  },
  "GET /mcp": { kind: "own", req: () => ({}), why: "405" },
  "DELETE /mcp": { kind: "own", req: () => ({}), why: "405" },
  "POST /v1/chat/completions": {
    kind: "own",
    req: () => ({
      body: {
        model: "memo",
        messages: [{ role: "user", content: "Zanzibar quokka safe code?" }],
        memo_space: SECRET.space,
      },
    }),
    why: "recalls from B's space (no provider here: an error, without A's memories)",
  },
  "GET /v1/models": { kind: "own", req: () => ({}), why: "the household's models" },
  "GET /api/v1/facts": {
    kind: "own",
    req: () => ({ query: `q=${encodeURIComponent("Zanzibar quokka canoe")}&history=1` }),
    why: "B's own spaces",
  },
  "POST /api/v1/facts": {
    kind: "own",
    req: () => ({ body: { space: SECRET.space, items: [{ text: "b's fact", sources: [A.workMemory] }] } }),
    why: "B's own space; A's memory as a source is refused like a missing one (the facts test below)",
  },
  "PATCH /api/v1/facts/[id]": {
    kind: "missing",
    id: "fact",
    req: (id) => ({ params: { id }, body: { text: "by b" } }),
  },
  "DELETE /api/v1/facts/[id]": { kind: "missing", id: "fact", req: (id) => ({ params: { id } }) },
};

const MCP: Record<string, Record<string, unknown>> = {
  remember: { text: "b remembers via mcp", space: SECRET.space },
  search_memory: { query: "Quillfeather merger ides", space: SECRET.space },
  forget: { pattern: "Quillfeather", space: SECRET.space, preview: true },
  list_facts: { q: "Zanzibar quokka canoe", history: true },
};

// ---- the tests ----

test("every tRPC procedure and every route handler has an isolation case (derived from the code)", async () => {
  const rest = (await restRoutes()).map((r) => r.key).sort();
  assert.ok(procedures.length >= 80, `found ${procedures.length} procedures`);
  assert.ok(rest.length >= 40, `found ${rest.length} route handlers`);
  assert.deepEqual(
    procedures.map((p) => p.name).filter((n) => !(n in TRPC)),
    [],
    "tRPC procedures without an isolation case",
  );
  assert.deepEqual(
    Object.keys(TRPC).filter((n) => !procedures.some((p) => p.name === n)),
    [],
    "stale tRPC cases",
  );
  assert.deepEqual(
    rest.filter((k) => !(k in REST)),
    [],
    "route handlers without an isolation case",
  );
  assert.deepEqual(
    Object.keys(REST).filter((k) => !rest.includes(k)),
    [],
    "stale REST cases",
  );
  console.log(`isolation: ${procedures.length} tRPC procedures, ${rest.length} route handlers`);
});

test("every tRPC procedure, called by B with A's ids and names, answers as if A's things did not exist", async () => {
  for (const h of [bHeaders, bTokenHeaders]) {
    for (const { name } of procedures) {
      const c = TRPC[name]!;
      const where = `trpc ${name} (${h === bHeaders ? "session" : "token"})`;
      if (c.kind === "missing") await assertLikeMissing(where, (id) => trpc(name, h, c.input(id)), A[c.id]!);
      else if (c.kind === "forbidden") {
        const a = await trpc(name, h, c.input);
        assertNoLeak(where, a);
        assert.equal(a.status, 403, `${where}: ${a.text.slice(0, 300)}`);
      } else assertNoLeak(where, await trpc(name, h, c.input?.()));
    }
  }
});

test("every route handler, called by B with A's ids and names, answers as if A's things did not exist", async () => {
  for (const h of [bHeaders, bTokenHeaders]) {
    for (const r of await restRoutes()) {
      const c = REST[r.key]!;
      const where = `${r.key} (${h === bHeaders ? "session" : "token"})`;
      if (c.kind === "missing") await assertLikeMissing(where, (id) => rest(r.key, h, c.req(id)), A[c.id!]!);
      else {
        // Signing out ends the session it is sent with: a throwaway one of B's, so the rest go on.
        const hh =
          r.key === "POST /api/auth/logout"
            ? { cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` }
            : h;
        const a = await rest(r.key, hh, c.req(""));
        assertNoLeak(where, a);
        if (c.kind === "forbidden")
          assert.ok(a.status === 403 || a.status === 401, `${where}: ${a.status} ${a.text.slice(-300)}`);
      }
    }
  }
});

test("every MCP tool (listed by the MCP route itself), called by B, shows none of A's memories", async () => {
  const listed = await rest("POST /mcp", bHeaders, { body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
  assert.equal(listed.status, 200, listed.text);
  const tools = (JSON.parse(bodyOf(listed)) as { result: { tools: { name: string }[] } }).result.tools
    .map((t) => t.name)
    .sort();
  assert.deepEqual(tools, Object.keys(MCP).sort(), "an MCP tool without an isolation case (or a stale one)");
  for (const name of tools) {
    const a = await rest("POST /mcp", bTokenHeaders, {
      body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: MCP[name] } },
    });
    assert.equal(a.status, 200, a.text);
    assertNoLeak(`mcp ${name}`, a);
  }
});

test("B's search and chat recall never return A's memories; A's data is intact after everything B did", async () => {
  // A fresh session: the route test signed B's first one out (POST /api/auth/logout).
  const b = trpcAs({ cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` });
  await b.memory.add({ text: "B keeps bees on the roof" });
  // The first half of each of A's texts (not the whole: the answer may quote the query).
  for (const q of SECRET_VALUES.map((t) => t.slice(0, Math.ceil(t.length / 2)))) {
    const hits = await b.memory.search({ query: q });
    assertNoLeak(`search "${q}"`, { status: 200, text: JSON.stringify(hits) });
    const recall = await runAs({ personId: bId, admin: false }, () =>
      recallForPrompt(memo, { space: `${bId}~personal`, query: q, context: [] }),
    );
    assertNoLeak(`recall "${q}"`, { status: 200, text: JSON.stringify(recall) });
  }
  // B's own memory is found by B, under the name B knows.
  const mine = await b.memory.search({ query: "bees on the roof" });
  assert.ok(JSON.stringify(mine).includes("B keeps bees"), "B finds B's own memory");
  assert.ok(!JSON.stringify(mine).includes(`${bId}~`), "B sees space names, not keys");
  // B's health counts B's memories only, over tRPC and REST (issue 43: no household totals for a member).
  const bLive = (
    store.sqlite
      .prepare(
        "SELECT count(*) AS n FROM memories WHERE soft_deleted = 0 AND space_id IN (SELECT id FROM spaces WHERE person_id = ?)",
      )
      .get(bId) as { n: number }
  ).n;
  assert.equal((await b.health.get()).store.memories, bLive, "B's health counts B's memories");
  const restHealth = await rest("GET /api/health", bHeaders);
  assert.equal((JSON.parse(bodyOf(restHealth)) as { store: { memories: number } }).store.memories, bLive);
  const bSpaces = await b.memory.spaces();
  assert.ok(bSpaces.includes("personal"), JSON.stringify(bSpaces));

  // A still has everything, as it was.
  const a = trpcAs(aHeaders);
  assert.equal((await a.manager.get({ id: A.memory! })).content, SECRET.personal);
  assert.equal((await a.manager.get({ id: A.workMemory! })).pinned, false);
  assert.equal((await a.manager.get({ id: A.trashed! })).softDeleted, true, "A's trashed memory stayed in the trash");
  assert.equal((await a.conversations.get({ id: A.conversation! })).conversation.title, SECRET.title);
  assert.equal((await a.documents.get({ id: A.document! })).status, "done");
  assert.ok((await a.memory.spaces()).includes(SECRET.space));
  const found = await a.memory.search({ query: SECRET.personal });
  assert.ok(JSON.stringify(found).includes(SECRET.personal), "A still finds A's memory");
});

test("a space A shares with B reaches B only where B names it, read-only means read-only, and after A stops sharing B sees and counts none of it", async () => {
  const b = trpcAs({ cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` });
  const a = trpcAs(aHeaders);
  const asB = <T>(fn: () => T) => runAs({ personId: bId, admin: false }, fn);
  const ref = `owner~${SECRET.space}`; // how B names A's space (server/core/acting.ts sharedSpaceOf)
  const query = "Quillfeather merger ides";
  // B's counts of memories (B's own recalls, made below, move B's retrieval count: that one is left out).
  const overview = async () => {
    const { retrievals: _, ...totals } = (await b.analytics.overview({})).totals;
    return totals;
  };
  const countsBefore = await overview();
  const conv = await b.conversations.create({ title: "B's chat about the merger" });
  const leak = (where: string, v: unknown) => assertNoLeak(where, { status: 200, text: JSON.stringify(v) });

  // Not shared yet: A's space answers B exactly like a space that does not exist.
  const missing = async (space: string) => trpc("memory.search", bHeaders, { query, space });
  const notShared = await missing(ref);
  const nowhere = await missing("owner~no-such-space");
  assert.equal(notShared.status, 404, notShared.text);
  assert.equal(notShared.text.replace(SECRET.space, "<s>"), nowhere.text.replace("no-such-space", "<s>"));
  assert.equal((await trpc("conversations.setSpaces", bHeaders, { id: conv.id, spaces: [ref] })).status, 404);

  await a.spaces.share({ space: SECRET.space, person: "b", mode: "read" });
  const withMe = (await b.spaces.shares()).withMe;
  assert.deepEqual(
    withMe.map((s) => [s.space, s.ownerName, s.mode]),
    [[ref, "Owner", "read"]],
  );
  // Named, B reads it, and every memory says whose it is.
  const hits = await b.memory.search({ query, space: ref });
  const found = hits.results.find((r) => r.content === SECRET.work);
  assert.ok(found, JSON.stringify(hits.results.map((r) => r.content)));
  assert.equal(found.whose?.owner, "Owner");
  const listed = await b.manager.list({ space: ref });
  assert.ok(listed.items.some((m) => m.content === SECRET.work && m.whose?.owner === "Owner"));
  // Not named, it is nowhere: B's own search, B's Manager, B's counts, a conversation that did not add it.
  leak("B's own search while shared", await b.memory.search({ query }));
  leak("B's Manager (all spaces) while shared", await b.manager.list({ status: "all" }));
  leak(
    "recall of a conversation that did not add it",
    await asB(() => recallForPrompt(memo, { space: `${bId}~personal`, query, context: [] })),
  );
  assert.deepEqual(await overview(), countsBefore, "B's analytics count none of A's memories while shared");
  // Added to B's conversation, its recall reads it.
  assert.deepEqual((await b.conversations.setSpaces({ id: conv.id, spaces: [ref] })).spaces, [ref]);
  const considered = await asB(() =>
    recallForPrompt(memo, { space: `${bId}~personal`, added: [SECRET.space], query, context: [] }),
  );
  assert.ok(considered.considered > 0, JSON.stringify(considered));
  // Its trash is A's alone: listed, fetched or restored by id, A's trashed memory there reads as missing to B.
  for (const status of ["deleted", "all"] as const) {
    const listed = JSON.stringify(await b.manager.list({ space: ref, status }));
    assert.ok(!listed.includes(SECRET.sharedTrashed), `B's Manager (${status}) of the shared space: ${listed}`);
  }
  await assertLikeMissing(
    "manager.get of the shared trash",
    (id) => trpc("manager.get", bHeaders, { id }),
    A.sharedTrashed!,
  );
  await assertLikeMissing(
    "GET /api/v1/memories/[id] of the shared trash",
    (id) => rest("GET /api/v1/memories/[id]", bHeaders, { params: { id } }),
    A.sharedTrashed!,
  );
  // Read-only: B writes nothing there, and A's memory by id cannot be changed (it answers as missing).
  assert.equal((await trpc("memory.remember", bHeaders, { text: "b writes into A's space", space: ref })).status, 403);
  assert.equal((await trpc("memory.forget", bHeaders, { pattern: "Quillfeather", space: ref })).status, 403);
  for (const [name, input] of [
    ["memory.delete", (id: string) => ({ id })],
    ["manager.delete", (id: string) => ({ ids: [id] })],
    ["manager.setPinned", (id: string) => ({ ids: [id], pinned: true })],
    ["manager.edit", (id: string) => ({ id, content: "overwritten by b" })],
  ] as const)
    await assertLikeMissing(`${name} on a read-only share`, (id) => trpc(name, bHeaders, input(id)), A.workMemory!);
  assert.equal((await a.manager.get({ id: A.workMemory! })).content, SECRET.work);
  // Read-write: B may change the space's live memories, still not its trash.
  await a.spaces.share({ space: SECRET.space, person: "b", mode: "write" });
  for (const [name, input] of [
    ["manager.restore", (id: string) => ({ ids: [id] })],
    ["manager.purge", (id: string) => ({ ids: [id] })],
    ["manager.setPinned", (id: string) => ({ ids: [id], pinned: true })],
    ["memory.delete", (id: string) => ({ id, purge: true })],
  ] as const)
    await assertLikeMissing(
      `${name} of the shared trash (read-write)`,
      (id) => trpc(name, bHeaders, input(id)),
      A.sharedTrashed!,
    );
  leak("memory.restore of the shared trash (read-write)", await b.memory.restore({ ids: [A.sharedTrashed!] }));
  assert.deepEqual((await b.memory.restore({ ids: [A.sharedTrashed!] })).restored, []);
  assert.equal((await a.manager.get({ id: A.sharedTrashed! })).softDeleted, true, "still in A's trash");
  await a.spaces.share({ space: SECRET.space, person: "b", mode: "read" });

  // A stops sharing: B's search, chat recall, Debug Search, Manager and analytics show and count none of it.
  assert.equal((await a.spaces.unshare({ space: SECRET.space, person: "b" })).removed, true);
  assert.deepEqual((await b.spaces.shares()).withMe, []);
  const after = await missing(ref);
  assert.equal(after.text.replace(SECRET.space, "<s>"), nowhere.text.replace("no-such-space", "<s>"));
  assert.deepEqual((await b.conversations.spaces({ id: conv.id })).spaces, [], "the conversation lost the space");
  for (const q of [query, SECRET.work.slice(0, 30)]) {
    leak(`B's search "${q}" after unsharing`, await b.memory.search({ query: q }));
    leak(
      `B's recall "${q}" after unsharing`,
      await asB(() =>
        recallForPrompt(memo, { space: `${bId}~personal`, added: [SECRET.space], query: q, context: [] }),
      ),
    );
    leak(`B's Manager after unsharing`, await b.manager.list({ space: ref, status: "all" }));
  }
  await assertLikeMissing("manager.get after unsharing", (id) => trpc("manager.get", bHeaders, { id }), A.workMemory!);
  leak("B's analytics after unsharing", await b.analytics.overview({}));
  assert.deepEqual(await overview(), countsBefore, "B's analytics count none of A's memories after unsharing");
});

test("facts: B sees none of A's until A shares the space, then with whose they are; read-only means read-only; A's ids answer like missing ones", async () => {
  const b = trpcAs({ cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` });
  const bh = { cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` };
  const a = trpcAs(aHeaders);
  const ref = `owner~${SECRET.space}`;
  const leak = (where: string, v: unknown) => assertNoLeak(where, { status: 200, text: JSON.stringify(v) });
  const post = (body: unknown) => rest("POST /api/v1/facts", bh, { body });
  // A's memories as sources, and A's facts as replaces, are refused exactly like ids that do not exist.
  for (const [field, id] of [
    ["sources", A.memory!],
    ["sources", A.workMemory!],
    ["replaces", A.fact!],
  ] as const) {
    const fake = crypto.randomUUID();
    const mine = (await b.memory.add({ text: "B's own source memory" })).ids[0]!;
    const item = (x: string) =>
      field === "sources" ? { text: "b's fact", sources: [x] } : { text: "b's fact", sources: [mine], replaces: [x] };
    const real = await post({ items: [item(id)] });
    const missing = await post({ items: [item(fake)] });
    assert.equal(real.status, 400, real.text);
    assert.equal(bodyOf(real).split(id).join("<id>"), bodyOf(missing).split(fake).join("<id>"));
  }
  // Not shared: the space reads as missing; B's lists show nothing of A's.
  const missingSpace = await trpc("facts.list", bh, { space: ref });
  const nowhere = await trpc("facts.list", bh, { space: "owner~no-such-space" });
  assert.equal(missingSpace.status, 404, missingSpace.text);
  assert.equal(missingSpace.text.replace(SECRET.space, "<s>"), nowhere.text.replace("no-such-space", "<s>"));
  leak("B's facts", await b.facts.list({ history: true }));
  const restMissing = await rest("GET /api/v1/facts", bh, { query: `space=${encodeURIComponent(ref)}` });
  assert.equal(restMissing.status, 404, restMissing.text);

  // Shared read-only: B reads A's facts in that space (named), each saying whose it is, and cannot change them.
  await a.spaces.share({ space: SECRET.space, person: "b", mode: "read" });
  const listed = await b.facts.list({ space: ref });
  assert.deepEqual(
    listed.facts.map((f) => [f.text, f.space, f.whose?.owner]),
    [[SECRET.workFact, ref, "Owner"]],
  );
  const rested = await rest("GET /api/v1/facts", bh, { query: `space=${encodeURIComponent(ref)}&history=1` });
  assert.equal(rested.status, 200, rested.text);
  assert.ok(bodyOf(rested).includes(SECRET.workFact));
  leak("B's own facts while shared", await b.facts.list({}));
  assert.equal((await b.facts.history({ id: A.workFact! })).facts[0]?.text, SECRET.workFact);
  const written = await post({ space: ref, items: [{ text: "b writes into A's space", sources: [A.workMemory!] }] });
  assert.equal(written.status, 403, written.text);
  for (const name of ["facts.edit", "facts.delete", "facts.confirm"] as const)
    await assertLikeMissing(
      `${name} on a read-only share`,
      (id) => trpc(name, bh, name === "facts.edit" ? { id, text: "by b" } : { id }),
      A.workFact!,
    );
  await assertLikeMissing(
    "DELETE /api/v1/facts/[id] on a read-only share",
    (id) => rest("DELETE /api/v1/facts/[id]", bh, { params: { id } }),
    A.workFact!,
  );
  // Read-write: B adds a fact there (written by B), and edits A's: a new version; A's stays as history.
  await a.spaces.share({ space: SECRET.space, person: "b", mode: "write" });
  const added = await post({ space: ref, items: [{ text: "B's fact in A's space", sources: [A.workMemory!] }] });
  assert.equal(added.status, 201, added.text);
  const edited = await b.facts.edit({ id: A.workFact!, text: `${SECRET.workFact}, at nine` });
  assert.equal(edited.created, true);
  const mineNow = await a.facts.list({ space: SECRET.space });
  assert.ok(
    mineNow.facts.some((f) => f.text === "B's fact in A's space" && f.whose?.writer === "B"),
    JSON.stringify(mineNow),
  );
  assert.deepEqual(
    (await a.facts.history({ id: A.workFact! })).facts.map((f) => f.text),
    [`${SECRET.workFact}, at nine`, SECRET.workFact],
  );
  // A stops sharing: nothing of it reaches B, by list or by id.
  await a.spaces.unshare({ space: SECRET.space, person: "b" });
  const after = await trpc("facts.list", bh, { space: ref });
  assert.equal(after.text.replace(SECRET.space, "<s>"), nowhere.text.replace("no-such-space", "<s>"));
  await assertLikeMissing("facts.history after unsharing", (id) => trpc("facts.history", bh, { id }), A.workFact!);
  await assertLikeMissing("facts.sources after unsharing", (id) => trpc("facts.sources", bh, { id }), A.workFact!);
  // A's own facts are intact: the personal one, the deleted one still deleted (and restorable by A).
  assert.deepEqual(
    (await a.facts.list({})).facts.map((f) => f.text).filter((t) => t === SECRET.fact),
    [SECRET.fact],
  );
  const sources = await a.facts.sources({ id: A.fact! });
  assert.deepEqual(
    sources.sources.map((x) => x.memoryId),
    [A.memory],
  );
  assert.equal((await a.facts.restore({ id: A.deletedFact! })).fact.text, SECRET.deletedFact);
  assert.deepEqual(checkInvariant(store.sqlite), []);
});

test("removing B takes all of B's data in one transaction (memories, vectors, FTS, documents and their files, chats, tokens) and nothing of A's", async () => {
  const db = store.sqlite;
  const bSession = { cookie: `memo_session=${createSession(db, { personId: bId }).token}` };
  const b = trpcAs(bSession);
  await b.memory.add({ text: "B's second memory about the allotment" });
  const trashed = (await b.memory.add({ text: "B's trashed memory" })).ids[0]!;
  await b.memory.delete({ id: trashed });
  const conv = await b.conversations.create({ title: "B's chat" });
  appendMessages(db, conv.id, [{ role: "user", content: "hello from B" }]);
  const doc = await runAs({ personId: bId, admin: false }, () =>
    addDocument(memo, "b-notes.md", new TextEncoder().encode("# B\n\nB's document about the garden shed\n")),
  );
  for (let i = 0; i < 200 && getDocument(db, doc.id)?.status !== "done"; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(getDocument(db, doc.id)?.status, "done");
  const uploaded = path.join(path.dirname(db.name), "uploads", doc.id);
  assert.ok(fs.existsSync(uploaded), "B's upload is kept beside the store");

  const mineSql = "(SELECT id FROM spaces WHERE person_id = ?)";
  const n = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
  const spacesOf = (who: string) =>
    (db.prepare("SELECT id FROM spaces WHERE person_id = ?").all(who) as { id: string }[]).map((r) => r.id);
  const countsOf = (who: string) => ({
    memories: n(`SELECT count(*) AS n FROM memories WHERE space_id IN ${mineSql}`, who),
    vectors: n(`SELECT count(*) AS n FROM memory_vec WHERE space_id IN ${mineSql}`, who),
    fts: (n(`SELECT count(*) AS n FROM spaces WHERE person_id = ?`, who) ? spacesOf(who) : []).reduce(
      (sum, space) => sum + indexedRids(db, "memory", space).length,
      0,
    ),
    trash: n(
      `SELECT count(*) AS n FROM memory_vec_trash WHERE rid IN (SELECT rid FROM memories WHERE space_id IN ${mineSql})`,
      who,
    ),
    conversations: n(`SELECT count(*) AS n FROM conversations WHERE space_id IN ${mineSql}`, who),
    documents: n(`SELECT count(*) AS n FROM documents WHERE space_id IN ${mineSql}`, who),
  });
  const aBefore = countsOf("owner");
  const bBefore = countsOf(bId);
  assert.ok(bBefore.memories >= 4 && bBefore.trash === 1 && bBefore.documents === 1, JSON.stringify(bBefore));
  const ftsTotal = indexedTotal(db, "memory");
  const vecTotal = n("SELECT count(*) AS n FROM memory_vec");

  const removed = await rest(`DELETE /api/v1/people/[id]`, aHeaders, { params: { id: bId } });
  assert.equal(removed.status, 200, removed.text);

  assert.deepEqual(countsOf(bId), { memories: 0, vectors: 0, fts: 0, trash: 0, conversations: 0, documents: 0 });
  assert.equal(n("SELECT count(*) AS n FROM spaces WHERE person_id = ?", bId), 0);
  assert.equal(n("SELECT count(*) AS n FROM memories WHERE space_id LIKE ?", `${bId}~%`), 0);
  // The free-text index and vectors lost exactly B's live rows.
  assert.equal(indexedTotal(db, "memory"), ftsTotal - bBefore.fts);
  assert.equal(n("SELECT count(*) AS n FROM memory_vec"), vecTotal - bBefore.vectors);
  assert.equal(fs.existsSync(uploaded), false, "B's uploaded file is gone");
  for (const t of ["auth_sessions", "api_tokens", "people"])
    assert.equal(n(`SELECT count(*) AS n FROM ${t} WHERE ${t === "people" ? "id" : "person_id"} = ?`, bId), 0, t);
  assert.equal(n("SELECT count(*) AS n FROM settings WHERE key LIKE ?", `%@person:${bId}`), 0);
  // Nothing else names B (issue 43): live counts of B's spaces, B's recall events, B as a writer.
  assert.equal(n("SELECT count(*) AS n FROM live_counts WHERE space_id LIKE ?", `${bId}~%`), 0, "live_counts");
  assert.equal(n("SELECT count(*) AS n FROM retrieval_events WHERE person_id = ?", bId), 0, "retrieval_events");
  assert.equal(n("SELECT count(*) AS n FROM memories WHERE written_by = ?", bId), 0, "written_by");
  assert.deepEqual(countsOf("owner"), aBefore, "A keeps everything");
  assert.deepEqual(checkInvariant(db), []);
});

// ---- pages (issue 32: "every route the app serves"), found from the app/ tree like the route handlers ----

interface PageFile {
  file: string;
  /** The URL pattern, e.g. /c/[id]. */
  pattern: string;
  /** A dynamic segment, or server-side code (the page or a local server module it imports) that imports server/. */
  needsCase: boolean;
}
function pageFiles(dir = appDir): PageFile[] {
  const out: PageFile[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...pageFiles(p));
    else if (e.name === "page.tsx" || e.name === "page.ts") {
      const segs = path
        .relative(appDir, dir)
        .split(path.sep)
        .filter((s) => s && !/^\(.*\)$/.test(s));
      const pattern = `/${segs.join("/")}`;
      const src = fs.readFileSync(p, "utf8");
      // The page's own local imports that run on the server (a "use client" module reads through tRPC, whose
      // procedures are covered above).
      const local = [...src.matchAll(/from "\.\/([\w.-]+)"/g)]
        .map((m) => ["ts", "tsx"].map((x) => path.join(dir, `${m[1]}.${x}`)).find((f) => fs.existsSync(f)))
        .filter((f): f is string => f !== undefined)
        .map((f) => fs.readFileSync(f, "utf8"))
        .filter((s) => !/^\s*["']use client["']/.test(s));
      const readsServer = [src, ...local].some((s) => /from "@\/server\//.test(s));
      out.push({ file: p, pattern, needsCase: /\[[^\]]+\]/.test(pattern) || readsServer });
    }
  }
  return out;
}

type PageCase =
  /** The page's server data loader, called as B with A's id: must answer exactly as for a missing id. */
  | { kind: "loader"; id: IdKey; load: (headers: Headers, id: string) => unknown }
  /** Server code that reads nothing of any person's. */
  | { kind: "none"; why: string };

const PAGE_CASES: Record<string, PageCase> = {
  "/c/[id]": {
    kind: "loader",
    id: "conversation",
    load: async (h, id) => (await import("../../app/c/[id]/load")).conversationTitleFor(h, id),
  },
  "/": { kind: "none", why: "checks the ?space= name's syntax (SPACE_RE); the chat reads through tRPC" },
  "/login": { kind: "none", why: "reads whether sign-in is on and an owner password is set: the household's" },
  "/password": { kind: "none", why: "reads only its ?next= parameter" },
};

test("every page with a dynamic segment or a server-side read has a case; another person gets A's ids as missing", async () => {
  const pages = pageFiles();
  assert.ok(pages.some((p) => p.pattern === "/c/[id]") && pages.length >= 8, JSON.stringify(pages));
  const needing = pages.filter((p) => p.needsCase).map((p) => p.pattern);
  const missing = needing.filter((p) => !(p in PAGE_CASES));
  assert.deepEqual(missing, [], `pages without an isolation case: ${missing.join(", ")}`);
  const stale = Object.keys(PAGE_CASES).filter((p) => !needing.includes(p));
  assert.deepEqual(stale, [], `cases for pages that are gone or need none: ${stale.join(", ")}`);
  console.log(`isolation: ${pages.length} pages, ${needing.length} with a server-side read or a dynamic segment`);

  for (const [pattern, c] of Object.entries(PAGE_CASES)) {
    if (c.kind !== "loader") continue;
    const call = async (headers: Record<string, string>, id: string): Promise<Answer> => {
      const v = await c.load(new Headers(headers), id);
      return { status: v === null || v === undefined ? 404 : 200, text: JSON.stringify(v ?? null) };
    };
    // The control: A's own loader finds it (so a loader that finds nothing for anyone fails here).
    const own = await call(aHeaders, A[c.id]!);
    assert.equal(own.status, 200, `${pattern}: A's own ${c.id} is found`);
    // Another person (made here: the suite removes B in an earlier test) with a session and with a token.
    const other = createPerson(store.sqlite, {
      name: "C",
      login: `c${crypto.randomUUID().slice(0, 8)}`,
      role: "member",
      passwordHash: "unused",
    });
    for (const [who, h] of [
      ["session", { cookie: `memo_session=${createSession(store.sqlite, { personId: other.id }).token}` }],
      ["token", { authorization: `Bearer ${createApiToken(store.sqlite, "c script", other.id).token}` }],
    ] as const) {
      assert.equal((await c.load(new Headers(h), "no-such-id")) ?? null, null);
      await assertLikeMissing(`page ${pattern} (another person's ${who})`, (id) => call(h, id), A[c.id]!);
    }
  }
});
