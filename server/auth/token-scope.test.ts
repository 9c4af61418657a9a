/**
 * What an API token may call (issue 58, docs/security.md "What an API token may do"). A token is for programs
 * that use Memo's memory; it may not change who can read or write what, or where memory goes: shares,
 * people, tokens and the password, privacy and learning choices, providers, settings, another person's
 * export. A token that could share a space gave its person's memory away, and the share outlived the token.
 *
 * Every tRPC procedure (from the app router object) and every route handler (from the app/ tree) is either
 * declared here as token-allowed, with why, or is called with an admin's API token and must refuse it with
 * 403 and change nothing. A procedure or route without a declaration fails the suite, as does a stale one.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setDb } from "../db";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { appRouter } from "../api/root";
import { callProcedure, callRoute, routeFiles } from "../test/route-harness";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson } from "./people";
import { hashPassword } from "./password";
import { createApiToken, createSession, setOwnerPasswordHash } from "./store";

/** Procedures a token may call, and why that gives nothing away. Every other procedure must refuse a token. */
const TOKEN_ALLOWED_PROCEDURES: Record<string, string> = {
  "memory.add": "writes memory into a space the person may write",
  "memory.addBatch": "as memory.add",
  "memory.search": "reads the person's memory",
  "memory.remember": "as memory.add",
  "memory.forget": "removes the person's memory (to the trash)",
  "memory.restore": "the person's trash",
  "memory.delete": "the person's memory",
  "memory.spaces": "lists the person's spaces",
  "documents.list": "the person's documents",
  "documents.get": "the person's documents",
  "documents.cancel": "the person's documents",
  "documents.delete": "the person's documents",
  "documents.reingest": "the person's documents",
  "documents.restore": "the person's documents",
  "documents.limits": "the server's upload limits",
  "health.get": "counts and status",
  "jobs.run": "runs a household job now (an admin's); changes no setting or access",
  "jobs.previewConsolidation": "a preview of a job run (an admin's)",
  "jobs.applyConsolidation": "a job run (an admin's)",
  "jobs.undoRun": "undoes a job run (an admin's)",
  "jobs.runs": "job history (an admin's)",
  "jobs.status": "schedule and progress",
  "jobs.lifetime": "reads the person's lifetime rules",
  "manager.list": "the person's memory",
  "manager.get": "the person's memory",
  "manager.edit": "the person's memory",
  "manager.setPinned": "the person's memory",
  "manager.setImportance": "the person's memory",
  "manager.delete": "the person's memory",
  "manager.restore": "the person's memory",
  "manager.purge": "the person's memory",
  "manager.imports": "the person's import jobs",
  "manager.cancelImport": "stops the person's import; forgetting sends what it stored to the trash, as memory.forget",
  "analytics.overview": "the person's figures",
  "analytics.lifetime": "the person's figures",
  "analytics.keep": "keeps one of the person's memories from decay",
  "spaces.list": "the person's spaces",
  "spaces.create": "a new space of the person's, shared with nobody",
  "spaces.rename": "the person's space; its shares follow it or go, none is added",
  "spaces.delete": "deletes the person's space (and its shares): takes access away, gives none",
  "spaces.shares": "reads whom the person shares with; changes nothing (share and unshare refuse tokens)",
  "spaces.shareNotices": "what was shared with the person",
  "spaces.dismissShareNotice": "the person's notice",
  "retrievalSettings.get": "reads the person's settings",
  "chat.status": "the chat page's status",
  "chat.confirmForget": "the person's /forget",
  "chat.keepExchange": "keeps an exchange of the person's as memory",
  "chat.undoForget": "the person's /forget",
  "conversations.list": "the person's conversations",
  "conversations.get": "the person's conversations",
  "conversations.create": "the person's conversations",
  "conversations.rename": "the person's conversations",
  "conversations.delete": "the person's conversations",
  "conversations.deletePreview": "the person's conversations",
  "conversations.search": "the person's conversations",
  "conversations.pin": "the person's conversations",
  "conversations.exportMarkdown": "one of the person's conversations, to the caller that may read it anyway",
  "conversations.spaces": "the spaces added to a conversation",
  "conversations.setSpaces":
    "adds spaces already shared with the person to their conversation; the owner's sharing choice still applies",
  "conversations.remembered": "the person's memories from a conversation",
  "access.status": "whether sign-in is on",
  "access.me": "who the caller is",
  "setup.status": "the first-run checklist's state",
  "setup.setChecklistDismissed": "hides the person's checklist",
  "privacy.status": "reads the person's choices",
  "privacy.setConversationMemory":
    "recall/storing of one conversation, as a temporary chat a token may start; what reaches a provider stays the person's sharing choice",
  "privacy.heartbeat": "keeps a temporary chat alive",
  "facts.list": "the person's facts",
  "facts.history": "the person's facts",
  "facts.sources": "the person's facts",
  "facts.edit": "the person's facts",
  "facts.confirm": "the person's facts",
  "facts.delete": "the person's facts",
  "facts.restore": "the person's facts",
  "facts.proposals": "the person's facts",
  "facts.acceptProposal": "the person's facts",
  "facts.dismissProposal": "the person's facts",
  "facts.decideProposals": "as facts.acceptProposal and facts.dismissProposal, several at once",
  "facts.summary": "counts of the person's facts",
  "learning.status": "reads the person's learning state",
  "learning.count": "counts what a back-fill would read",
  "learning.start":
    "a back-fill run; where it may send memory is the person's learning and sharing switches, which a token cannot change",
  "learning.runs": "the person's runs",
  "learning.run": "the person's runs",
  "learning.stop": "the person's runs",
  "learning.undo": "the person's runs",
  "learning.reply": "the person's facts",
  "learning.undoFact": "the person's facts",
};

/** Routes a token may call, and why. Every other route must answer a token with 403. */
const TOKEN_ALLOWED_ROUTES: Record<string, string> = {
  "POST /api/auth/login": "signing in takes a password, not a token",
  "POST /api/auth/logout": "ends the session sent with it (a token has none)",
  "POST /api/chat": "chat",
  "POST /api/chat/stop": "stops the person's turn",
  "GET /api/health": "status",
  "GET /api/trpc/[trpc]": "every procedure is walked on its own below",
  "POST /api/trpc/[trpc]": "every procedure is walked on its own below",
  "DELETE /api/v1/conversations/[id]": "the person's conversation",
  "POST /api/v1/documents/[id]/cancel": "the person's documents",
  "POST /api/v1/documents/[id]/reingest": "the person's documents",
  "POST /api/v1/documents/[id]/restore": "the person's documents",
  "GET /api/v1/documents/[id]": "the person's documents",
  "DELETE /api/v1/documents/[id]": "the person's documents",
  "GET /api/v1/documents": "the person's documents",
  "POST /api/v1/documents": "uploads into the person's space",
  "GET /api/v1/export":
    "the person's own memories, to a program that can already read every one of them (search, the Manager's list); never another person's",
  "GET /api/v1/facts": "the person's facts",
  "POST /api/v1/facts": "the person's facts",
  "PATCH /api/v1/facts/[id]": "the person's facts",
  "DELETE /api/v1/facts/[id]": "the person's facts",
  "POST /api/v1/forget": "the person's memory",
  "POST /api/v1/import/[format]": "imports into the person's space",
  "GET /api/v1/import/jobs/[id]": "the person's import jobs",
  "GET /api/v1/import/jobs": "the person's import jobs",
  "POST /api/v1/import/jobs/[id]/cancel": "as manager.cancelImport",
  "POST /api/v1/import": "imports into the person's space",
  "POST /api/v1/jobs/[job]/run": "a household job run (an admin's)",
  "POST /api/v1/jobs/runs/[id]/undo": "undoes a job run (an admin's)",
  "GET /api/v1/jobs/runs": "job history (an admin's)",
  "GET /api/v1/memories/[id]": "the person's memory",
  "DELETE /api/v1/memories/[id]": "the person's memory",
  "POST /api/v1/memories/batch": "the person's memory",
  "POST /api/v1/memories/restore": "the person's memory",
  "POST /api/v1/memories": "the person's memory",
  "POST /api/v1/remember": "the person's memory",
  "POST /api/v1/search": "the person's memory",
  "GET /mcp": "MCP: memory tools",
  "POST /mcp": "MCP: memory tools",
  "DELETE /mcp": "MCP: memory tools",
  "POST /v1/chat/completions": "chat",
  "GET /v1/models": "the models a chat may name",
};

let store: TempStore;
let memo: MemoContext;
let bId: string;
let ownerToken: Record<string, string>;
let ownerSession: Record<string, string>;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  const fast = { log2N: 10, r: 8, p: 1 };
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", fast));
  bId = createPerson(store.sqlite, {
    name: "B",
    login: "b",
    role: "member",
    passwordHash: await hashPassword("b password 1", fast),
  }).id;
  // The owner is an admin: a refusal below is the token's, not a missing role.
  ownerToken = { authorization: `Bearer ${createApiToken(store.sqlite, "owner script").token}` };
  ownerSession = { cookie: `memo_session=${createSession(store.sqlite, { personId: "owner" }).token}` };
});

after(() => {
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const procedures = Object.keys(
  (appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures,
);
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
async function routeKeys(): Promise<string[]> {
  const out: string[] = [];
  for (const r of routeFiles()) {
    const mod = (await import(r.file)) as Record<string, unknown>;
    for (const m of METHODS) if (typeof mod[m] === "function") out.push(`${m} ${r.pattern}`);
  }
  return out;
}
const shares = () => (store.sqlite.prepare("SELECT count(*) AS n FROM space_shares").get() as { n: number }).n;

test("an API token cannot share its person's space; their session can, and only a session can stop it", async () => {
  const byToken = await callProcedure(memo, "spaces.share", ownerToken, {
    space: "personal",
    person: "b",
    mode: "write",
  });
  assert.match(byToken.body, /^FORBIDDEN: .*API tokens cannot/, byToken.body);
  assert.equal(shares(), 0, "no share was made");
  const bySession = await callProcedure(memo, "spaces.share", ownerSession, {
    space: "personal",
    person: "b",
    mode: "read",
  });
  assert.equal(bySession.status, 200, bySession.body);
  assert.equal(shares(), 1);
  const unshare = await callProcedure(memo, "spaces.unshare", ownerToken, { space: "personal", person: bId });
  assert.match(unshare.body, /^FORBIDDEN/, unshare.body);
  assert.equal(shares(), 1, "a token cannot take it back either");
});

test("every tRPC procedure is declared token-allowed or refuses an admin's API token with 403", async () => {
  const stale = Object.keys(TOKEN_ALLOWED_PROCEDURES).filter((p) => !procedures.includes(p));
  assert.deepEqual(stale, [], "declared procedures that no longer exist");
  const refused: string[] = [];
  for (const name of procedures) {
    if (name in TOKEN_ALLOWED_PROCEDURES) continue;
    // No input: the token check runs before the input is read, so the answer is the refusal whatever it is.
    const a = await callProcedure(memo, name, ownerToken, undefined);
    assert.match(a.body, /^FORBIDDEN: .*API tokens cannot/, `${name} answered a token: ${a.body.slice(0, 200)}`);
    refused.push(name);
  }
  // What the issue names is among the refused: shares, tokens, password, privacy, learning, providers, settings.
  for (const p of [
    "spaces.share",
    "spaces.unshare",
    "access.createToken",
    "access.revokeToken",
    "access.tokens",
    "access.changeMyPassword",
    "access.setPassword",
    "access.signOutEverywhere",
    "privacy.setSharing",
    "privacy.setTemporaryReadsMemory",
    "learning.setProvider",
    "providers.save",
    "providers.select",
    "retrievalSettings.save",
    "jobs.saveSettings",
    "jobs.saveLifetime",
  ])
    assert.ok(refused.includes(p), `${p} refuses a token`);
});

test("every route is declared token-allowed or answers an admin's API token with 403", async () => {
  const keys = await routeKeys();
  const stale = Object.keys(TOKEN_ALLOWED_ROUTES).filter((k) => !keys.includes(k));
  assert.deepEqual(stale, [], "declared routes that no longer exist");
  const refused: string[] = [];
  const peopleBefore = (store.sqlite.prepare("SELECT count(*) AS n FROM people").get() as { n: number }).n;
  for (const key of keys) {
    if (key in TOKEN_ALLOWED_ROUTES) continue;
    const a = await callRoute(key, ownerToken, { params: { id: bId }, body: key.startsWith("GET") ? undefined : {} });
    assert.equal(a.status, 403, `${key} answered a token: ${a.status} ${a.body.slice(0, 200)}`);
    refused.push(key);
  }
  for (const k of ["POST /api/v1/people", "GET /api/v1/people", "DELETE /api/v1/people/[id]", "POST /api/v1/tokens"])
    assert.ok(refused.includes(k), `${k} refuses a token`);
  assert.equal((store.sqlite.prepare("SELECT count(*) AS n FROM people").get() as { n: number }).n, peopleBefore);
});
