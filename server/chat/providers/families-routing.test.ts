/**
 * A family registered later (a test double, server/test/provider-family-double.ts) is recognised wherever a
 * person or a program names it (issue 58 item 5): `/v1`'s "<family>:<model>" routes to it under its own
 * model name, and its memory-sharing and fact-learning switches ("<family>@<host>") are accepted — none of
 * them from a hand-written list of the built-in ids.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createCaller } from "../../api/root";
import type { MemoContext } from "../../core/context";
import { resolveModel } from "../../http/openai-compat-request";
import { registerTestFamilies } from "../../test/provider-family-double";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { loadLearningSettings } from "../fact-model";
import { loadPrivacySettings } from "../memory-policy";
import { resetProviderSettings, saveProviderSettings } from "./index";

const ENV = ["MEMO_PROVIDER", "MEMO_DATA_DIR", "MEMO_ACME_BASE_URL", "MEMO_ACME_API_KEY", "MEMO_LOOPY_MODEL"];
const saved: Record<string, string | undefined> = {};
let store: TempStore;
let memo: MemoContext;

before(() => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  memo = { db: store.sqlite, embedder: undefined as never };
  registerTestFamilies();
});
after(() => {
  resetProviderSettings(store.sqlite);
  store.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test("/v1 sends '<family>:<model>' of a family registered later to that family, under its own model name", () => {
  // Another family is the active one: before, "acme:echo-9" went to it, named "acme:echo-9".
  saveProviderSettings(store.sqlite, { active: "openai", openai: { baseUrl: "http://127.0.0.1:9/v1", model: "m" } });
  const r = resolveModel(store.sqlite, "acme:echo-9");
  assert.deepEqual([r.provider.id, r.model], ["acme", "echo-9"]);
  // A name whose prefix is no registered family is a model of the active provider, as before.
  const other = resolveModel(store.sqlite, "acmex:echo-9");
  assert.deepEqual([other.provider.id, other.model], ["openai", "acmex:echo-9"]);
});

test("a family registered later has working memory-sharing and learning switches", async () => {
  const caller = createCaller({ memo, headers: new Headers() });
  process.env.MEMO_PROVIDER = "acme";
  const status = await caller.privacy.status();
  const acme = status.providers.find((p) => p.provider === ("acme" as string));
  assert.ok(acme, "the test family is listed");
  assert.equal(acme.key, "acme@api.acme.test");
  assert.deepEqual(await caller.privacy.setSharing({ key: acme.key, mode: "pinned" }), {
    key: "acme@api.acme.test",
    mode: "pinned",
  });
  assert.equal(loadPrivacySettings(store.sqlite).sharing["acme@api.acme.test"], "pinned");
  // A family on this machine has no sharing choice (it always may), and a name nobody registered is refused.
  await assert.rejects(caller.privacy.setSharing({ key: "loopy@local", mode: "on" }), /of a remote provider/);
  await assert.rejects(caller.privacy.setSharing({ key: "nobody@x.test", mode: "on" }), /of a remote provider/);

  assert.deepEqual(await caller.learning.setProvider({ key: "acme@api.acme.test", on: true }), {
    key: "acme@api.acme.test",
    on: true,
  });
  assert.equal(loadLearningSettings(store.sqlite).providers["acme@api.acme.test"], true);
  await assert.rejects(caller.learning.setProvider({ key: "nobody@x.test", on: true }), /of a configured provider/);
});
