/**
 * Refusals of an import file name the file and say what to send (issue 55): "request body is not valid
 * JSON" becomes "“notes.txt” could not be read: it is not valid JSON. Choose the conversations.json file …"; a planner's refusal is prefixed with the file's name;
 * errors that are not a refusal of the file pass unchanged. Bytes go through the real worker planner.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ServiceError } from "../core/errors";
import { namingTheFile } from "./import-handlers";
import { planOffThread } from "./import-plan-thread";

const bytes = (s: string) => new TextEncoder().encode(s);
const refusal = (format: "chatgpt" | "claude" | "memo", body: string | Uint8Array, label: string) =>
  planOffThread(format, typeof body === "string" ? bytes(body) : body, undefined).then(
    () => assert.fail("planned"),
    (e: unknown) => namingTheFile(e, label, format) as ServiceError,
  );

test("a file that is not JSON: a plain 400 naming it and the file to choose, not 'request body is not valid JSON'", async () => {
  const e = await refusal("chatgpt", "Dear diary, today I imported my chats.", "notes.txt");
  assert.ok(e instanceof ServiceError);
  assert.equal(e.status, 400);
  assert.equal(
    e.message,
    "“notes.txt” could not be read: it is not valid JSON. Choose the conversations.json file (nothing was imported).",
  );
  const u = await refusal("claude", new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), "photo.jpg");
  assert.equal(
    u.message,
    "“photo.jpg” could not be read: it is not valid UTF-8 text. Choose the Claude conversations.json file (nothing was imported).",
  );
});

test("a planner's refusal is prefixed with the file's name; other errors pass as they are", async () => {
  const e = await refusal("claude", '{"a":1}', "export.json");
  assert.equal(e.status, 400);
  assert.match(e.message, /^“export\.json” was not imported: conversations\.json must be a JSON array/);
  const plain = new Error("disk on fire");
  assert.equal(namingTheFile(plain, "x.json", "memo"), plain);
  const notFound = new ServiceError(404, "space 'x' does not exist");
  assert.equal(namingTheFile(notFound, "x.json", "memo"), notFound);
});
