import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCommand } from "./commands";

test("/remember takes the rest of the message, trimmed, across lines", () => {
  assert.deepEqual(parseCommand("/remember my sister lives in Berlin"), {
    type: "remember",
    text: "my sister lives in Berlin",
  });
  assert.deepEqual(parseCommand("  /remember   two\nlines  "), { type: "remember", text: "two\nlines" });
  assert.deepEqual(parseCommand("/REMEMBER Shout"), { type: "remember", text: "Shout" });
  assert.deepEqual(parseCommand('/remember "quoted fact"'), { type: "remember", text: "quoted fact" });
});

test("/forget takes a pattern of at least 2 characters; quotes are removed", () => {
  assert.deepEqual(parseCommand("/forget green tea"), { type: "forget", pattern: "green tea" });
  assert.deepEqual(parseCommand("/Forget “Berlin”"), { type: "forget", pattern: "Berlin" });
  assert.deepEqual(parseCommand("/forget 'x'"), {
    type: "invalid",
    command: "forget",
    message: "Usage: /forget <pattern> (at least 2 characters)",
  });
  assert.equal(parseCommand("/forget")?.type, "invalid");
  assert.equal(parseCommand(`/forget ${"a".repeat(1001)}`)?.type, "invalid");
});

test("mismatched quotes are kept as typed", () => {
  assert.deepEqual(parseCommand(`/forget "tea'`), { type: "forget", pattern: `"tea'` });
});

test("a command without its argument explains how to use it", () => {
  assert.deepEqual(parseCommand("/remember"), {
    type: "invalid",
    command: "remember",
    message: "Usage: /remember <text to remember>",
  });
  assert.deepEqual(parseCommand("/remember    "), {
    type: "invalid",
    command: "remember",
    message: "Usage: /remember <text to remember>",
  });
});

test("/help; anything else is an ordinary message", () => {
  assert.deepEqual(parseCommand("/help"), { type: "help" });
  for (const m of [
    "remember to buy milk",
    "/rememberme now",
    "/usr/bin is a folder",
    "what about /forget?",
    "",
    "/ remember x",
    "/forgetful",
  ]) {
    assert.equal(parseCommand(m), null, m);
  }
});
