/**
 * The job settings are split and merged by one declaration of whose each field is (JOB_SETTING_SCOPES):
 * every field a person changes reaches the others exactly when it is the household's. The cases are
 * checked to cover every field of the declaration, so a new field cannot be left out of this test.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runAs } from "../core/acting";
import { openTempStore } from "../test/temp-store";
import {
  DEFAULT_JOB_SETTINGS,
  JOB_SETTING_SCOPES,
  type JobSettingsPatch,
  loadJobSettings,
  loadPersonLifetime,
  personLifetimeSchema,
  saveJobSettings,
} from "./settings";

const store = openTempStore();
after(() => store.close());
const db = store.sqlite;
const ann = { personId: "ann", admin: true };
const bob = { personId: "bob", admin: false };

/** A change of each field (path → patch and where to read it back). */
const CHANGES: Record<string, { patch: JobSettingsPatch; read: (s: ReturnType<typeof loadJobSettings>) => unknown }> = {
  "decay.enabled": { patch: { decay: { enabled: false } }, read: (s) => s.decay.enabled },
  "decay.time": { patch: { decay: { time: "04:30" } }, read: (s) => s.decay.time },
  "decay.idleDays": { patch: { decay: { idleDays: 3 } }, read: (s) => s.decay.idleDays },
  "decay.zeroDays": { patch: { decay: { zeroDays: 2 } }, read: (s) => s.decay.zeroDays },
  "decay.retentionDays": { patch: { decay: { retentionDays: 9 } }, read: (s) => s.decay.retentionDays },
  consolidate: { patch: { consolidate: { maxPerSpace: 50 } }, read: (s) => s.consolidate.maxPerSpace },
  lifetime: { patch: { lifetime: { import: "decay" } }, read: (s) => s.lifetime.import },
};

const leaves = Object.entries(JOB_SETTING_SCOPES).flatMap(([k, v]) =>
  typeof v === "string" ? [[k, v] as const] : Object.entries(v).map(([f, s]) => [`${k}.${f}`, s] as const),
);

test("the cases cover every field of the declaration", () => {
  assert.deepEqual(Object.keys(CHANGES).sort(), leaves.map(([k]) => k).sort());
});

test("a personal field Ann changes is hers alone; a household one reaches everyone", () => {
  for (const [path, scope] of leaves) {
    const { patch, read } = CHANGES[path]!;
    const before = { bob: read(runAs(bob, () => loadJobSettings(db))), owner: read(loadJobSettings(db)) };
    const annNow = read(runAs(ann, () => saveJobSettings(db, patch)));
    assert.notDeepEqual(annNow, before.bob, `${path}: the change took for Ann`);
    assert.deepEqual(read(runAs(ann, () => loadJobSettings(db))), annNow, path);
    const bobNow = read(runAs(bob, () => loadJobSettings(db)));
    const ownerNow = read(loadJobSettings(db));
    if (scope === "personal") {
      assert.deepEqual([bobNow, ownerNow], [before.bob, before.owner], `${path} is Ann's own`);
    } else {
      assert.deepEqual([bobNow, ownerNow], [annNow, annNow], `${path} is the household's`);
    }
  }
  // The person's record holds exactly the personal fields.
  const mine = runAs(ann, () => loadPersonLifetime(db));
  assert.deepEqual(Object.keys(personLifetimeSchema.shape).sort(), [
    "idleDays",
    "lifetime",
    "retentionDays",
    "zeroDays",
  ]);
  assert.deepEqual(mine, {
    idleDays: 3,
    zeroDays: 2,
    retentionDays: 9,
    lifetime: { ...DEFAULT_JOB_SETTINGS.lifetime, import: "decay" },
  });
});
