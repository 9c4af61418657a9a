/**
 * The fact-learning setting is declared once (learning-fields.ts): the settings store keeps it as the scope the
 * declaration says, fact-model.ts reads its default and validation from it, and the form's line names that
 * default. A person's saved switch wins over the default; clearing it (null) brings the default back.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runAs } from "../core/acting";
import { settingDeclaration } from "../core/settings-store";
import { openTempStore } from "../test/temp-store";
import { learningOn, learningSettingsSchema, loadLearningSettings, setLearning } from "./fact-model";
import { LEARNING_SETTING, learningDefault, learningHint } from "./learning-fields";
import type { ProviderEndpoint } from "./memory-policy";

const store = openTempStore();
after(() => store.close());

const endpoint = (local: boolean): ProviderEndpoint => ({
  provider: local ? "llama" : "anthropic",
  label: local ? "Local llama.cpp" : "Anthropic",
  host: local ? "this machine" : "api.anthropic.com",
  local,
  key: local ? "llama@local" : "anthropic@api.anthropic.com",
});

test("whose it is: the settings store's declaration agrees with the setting's", () => {
  assert.equal(settingDeclaration(LEARNING_SETTING.key).scope, LEARNING_SETTING.scope);
});

test("the default by where the endpoint is, and the validation, are the declaration's", () => {
  const none = learningSettingsSchema.parse({});
  for (const local of [true, false]) {
    assert.equal(learningOn(none, endpoint(local)), learningDefault(local));
    assert.equal(learningDefault(local), LEARNING_SETTING.field.default[local ? "local" : "remote"]);
  }
  const max = LEARNING_SETTING.field.keyMaxLength;
  assert.ok(learningSettingsSchema.safeParse({ providers: { ["k".repeat(max)]: true } }).success);
  assert.equal(learningSettingsSchema.safeParse({ providers: { ["k".repeat(max + 1)]: true } }).success, false);
  assert.equal(learningSettingsSchema.safeParse({ providers: { "a@b": "yes" } }).success, false);
  assert.equal(learningSettingsSchema.safeParse({ providers: {}, other: 1 }).success, false);
});

test("a saved switch is the person's own and wins; cleared, the declared default is back", () => {
  const db = store.sqlite;
  const remote = endpoint(false);
  const ann = { personId: "ann", admin: false };
  runAs(ann, () => setLearning(db, remote.key, true));
  assert.equal(
    learningOn(
      runAs(ann, () => loadLearningSettings(db)),
      remote,
    ),
    true,
  );
  assert.equal(learningOn(loadLearningSettings(db), remote), learningDefault(false), "the owner's stays the default");
  runAs(ann, () => setLearning(db, remote.key, null));
  assert.equal(
    learningOn(
      runAs(ann, () => loadLearningSettings(db)),
      remote,
    ),
    learningDefault(false),
  );
});

test("the form's line names the default", () => {
  assert.equal(learningHint(true), "· on this machine (on by default)");
  assert.equal(
    learningHint(false),
    "· remote: costs one extra call per exchange, and sends it the exchange with your known facts (off by default)",
  );
});
