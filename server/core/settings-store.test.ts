/**
 * Settings are declared once with whose they are (SETTINGS): a person's personal setting is theirs alone, a
 * household one is everyone's, and a key nobody declared is refused instead of silently becoming the
 * household's (as one left out of the old hand-kept list of personal keys did).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runAs } from "./acting";
import { OWNER_ID } from "./space-name";
import { readSetting, SETTINGS, settingDeclaration, writeSetting } from "./settings-store";
import { openTempStore } from "../test/temp-store";

const store = openTempStore();
after(() => store.close());
const db = store.sqlite;
const ann = { personId: "ann", admin: false };
const bob = { personId: "bob", admin: false };

test("every declared setting keeps to its scope: personal ones per person, household ones shared", () => {
  const keys = Object.entries(SETTINGS).map(([k, d]) => ["prefix" in d ? `${k}some-model` : k, d.scope] as const);
  assert.ok(keys.length >= 8);
  for (const [key, scope] of keys) {
    runAs(ann, () => writeSetting(db, key, { by: "ann" }));
    const seenByBob = runAs(bob, () => readSetting(db, key));
    const seenByOwner = readSetting(db, key);
    if (scope === "personal") {
      assert.equal(seenByBob, undefined, `${key}: Bob does not see Ann's`);
      assert.equal(seenByOwner, undefined, `${key}: the owner does not see Ann's`);
      assert.deepEqual(readSetting(db, key, "ann"), { by: "ann" }, `${key}: read as Ann's by a household job`);
    } else {
      assert.deepEqual(seenByBob, { by: "ann" }, `${key}: the household's`);
      assert.deepEqual(seenByOwner, { by: "ann" }, key);
    }
  }
});

test("a setting that is not declared is refused, for the owner and for anyone else, and nothing is written", () => {
  const before = db.prepare("SELECT count(*) AS n FROM settings").get() as { n: number };
  for (const who of [{ personId: OWNER_ID, admin: true }, ann])
    for (const call of [() => writeSetting(db, "ui.newPanel", { open: true }), () => readSetting(db, "ui.newPanel")])
      assert.throws(
        () => runAs(who, call),
        /setting 'ui\.newPanel' is not declared in SETTINGS .*personal or the household's/,
      );
  assert.deepEqual(db.prepare("SELECT count(*) AS n FROM settings").get(), before);
  // A family's bare prefix is no key of it.
  assert.throws(() => settingDeclaration("retrieval:"), /not declared/);
  assert.equal(settingDeclaration("retrieval:nomic").scope, "personal");
});
