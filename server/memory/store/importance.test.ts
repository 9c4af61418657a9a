/**
 * The store's bulk pin and importance writes (the Manager's selection) change only memories the acting person
 * may change, as the single-memory setPinned does: another person's memory in a space not shared with them is
 * left as it was, whatever ids the caller passes.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { mySpace, runAs } from "../../core/acting";
import { createPerson } from "../../auth/people";
import { openTempStore } from "../../test/temp-store";
import { getMemory, insertMemories, setMemoriesImportance, setMemoriesPinned } from "./index";

const store = openTempStore({ model: "m", dim: 4 });
after(() => store.close());
const db = store.sqlite;
const vector = () => new Float32Array([1, 0, 0, 0]);

test("bulk pin and importance write only the acting person's writable memories", () => {
  const b = createPerson(db, { name: "B", login: "b", role: "member", passwordHash: "x" });
  const asOwner = <T>(fn: () => T) => runAs({ personId: "owner", admin: true }, fn);
  const asB = <T>(fn: () => T) => runAs({ personId: b.id, admin: false }, fn);
  const [ownerMemory] = asOwner(() =>
    insertMemories(
      db,
      [{ spaceId: mySpace("personal"), content: "the owner's memory", importance: 2 }],
      [vector()],
      "m",
    ),
  );
  const [bMemory] = asB(() =>
    insertMemories(db, [{ spaceId: mySpace("personal"), content: "B's memory", importance: 2 }], [vector()], "m"),
  );

  assert.equal(
    asB(() => setMemoriesImportance(db, [ownerMemory!, bMemory!], 4)),
    1,
  );
  assert.equal(getMemory(db, ownerMemory!)!.importance, 2);
  assert.equal(getMemory(db, bMemory!)!.importance, 4);

  assert.equal(
    asB(() => setMemoriesPinned(db, [ownerMemory!, bMemory!], true)),
    1,
  );
  assert.equal(getMemory(db, ownerMemory!)!.pinned, false);
  assert.equal(getMemory(db, bMemory!)!.pinned, true);
  assert.equal(getMemory(db, bMemory!)!.importance, 5, "pinning sets importance 5");

  // The owner's own call changes theirs; a pinned memory keeps importance 5.
  assert.equal(
    asOwner(() => setMemoriesImportance(db, [ownerMemory!], 0)),
    1,
  );
  assert.equal(
    asB(() => setMemoriesImportance(db, [bMemory!], 1)),
    0,
  );
  assert.equal(getMemory(db, bMemory!)!.importance, 5);
});
