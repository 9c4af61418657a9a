import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import {
  boundaryOf,
  cleanFilename,
  dispositionParams,
  filenameProblem,
  MultipartError,
  readMultipart,
} from "./multipart";
import { documentHash } from "./documents";

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "memo-multipart-"));
  dirs.push(d);
  return d;
}

/** A multipart request as a browser (undici's FormData encoder) sends it, optionally re-chunked into tiny pieces. */
async function formRequest(form: FormData, chunk?: number): Promise<Request> {
  const encoded = new Request("http://127.0.0.1/api/v1/documents", { method: "POST", body: form });
  if (!chunk) return encoded;
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      const n = Math.min(chunk, bytes.length - at);
      c.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
  return new Request("http://127.0.0.1/api/v1/documents", {
    method: "POST",
    body: stream,
    headers: { "content-type": encoded.headers.get("content-type")! },
    duplex: "half",
  } as RequestInit);
}

const fileBytes = (n: number, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

for (const chunk of [undefined, 1, 7, 4096]) {
  test(`files and fields come through intact${chunk ? ` (body in ${chunk}-byte pieces)` : ""}`, async () => {
    const dir = tmp();
    const a = fileBytes(10_000);
    const b = new TextEncoder().encode("# Notes\r\n\r\n--not a boundary\r\n");
    const form = new FormData();
    form.append("space", "work_1");
    form.append("file", new Blob([a], { type: "application/pdf" }), "report.pdf");
    form.append("file", new Blob([b], { type: "text/markdown" }), "notes é.md");
    const r = await readMultipart(await formRequest(form, chunk), { dir, maxFileBytes: 1 << 20 });
    assert.deepEqual(r.fields, { space: "work_1" });
    assert.deepEqual(
      r.files.map((f) => [f.field, f.filename, f.contentType, f.size, f.tooLarge]),
      [
        ["file", "report.pdf", "application/pdf", a.length, false],
        ["file", "notes é.md", "text/markdown", b.length, false],
      ],
    );
    assert.deepEqual(new Uint8Array(fs.readFileSync(r.files[0]!.path!)), a);
    assert.deepEqual(new Uint8Array(fs.readFileSync(r.files[1]!.path!)), b);
    assert.equal(r.files[0]!.sha256, documentHash(a));
  });
}

test("a file over the limit is counted, not stored, and the next file still comes through", async () => {
  const dir = tmp();
  const form = new FormData();
  form.append("file", new Blob([fileBytes(5000)]), "big.txt");
  form.append("file", new Blob([fileBytes(100)]), "small.txt");
  const r = await readMultipart(await formRequest(form, 333), { dir, maxFileBytes: 1000 });
  assert.deepEqual(
    r.files.map((f) => [f.filename, f.size, f.tooLarge, f.path === null]),
    [
      ["big.txt", 5000, true, true],
      ["small.txt", 100, false, false],
    ],
  );
  assert.deepEqual(fs.readdirSync(dir).length, 1, "only the small file is on disk");
});

test("an empty file input (no file chosen) is skipped; an empty file is kept with size 0", async () => {
  const dir = tmp();
  const form = new FormData();
  form.append("file", new Blob([]), "");
  form.append("file", new Blob([]), "empty.md");
  const r = await readMultipart(await formRequest(form), { dir, maxFileBytes: 1000 });
  assert.deepEqual(
    r.files.map((f) => [f.filename, f.size]),
    [["empty.md", 0]],
  );
});

test("bad requests: not multipart, truncated body, too many files, oversized field; staged files are removed", async () => {
  const dir = tmp();
  const reject = (status: number, re: RegExp) => (e: unknown) =>
    e instanceof MultipartError && e.status === status && re.test(e.message);
  await assert.rejects(
    readMultipart(
      new Request("http://x/", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }),
      { dir, maxFileBytes: 10 },
    ),
    reject(400, /multipart\/form-data/),
  );
  const form = new FormData();
  form.append("file", new Blob([fileBytes(3000)]), "a.txt");
  const full = new Uint8Array(await (await formRequest(form)).arrayBuffer());
  const ct = (await formRequest(form)).headers.get("content-type")!;
  const cut = new Request("http://x/", { method: "POST", body: full.slice(0, 2000), headers: { "content-type": ct } });
  await assert.rejects(
    readMultipart(cut, { dir, maxFileBytes: 1 << 20 }),
    reject(400, /ended before its closing boundary/),
  );
  const many = new FormData();
  for (let i = 0; i < 4; i++) many.append("file", new Blob([fileBytes(10)]), `f${i}.txt`);
  await assert.rejects(
    readMultipart(await formRequest(many), { dir, maxFileBytes: 100, maxFiles: 3 }),
    reject(413, /too many files/),
  );
  const longField = new FormData();
  longField.append("space", "x".repeat(5000));
  await assert.rejects(
    readMultipart(await formRequest(longField), { dir, maxFileBytes: 100 }),
    reject(400, /longer than 4096 bytes/),
  );
  assert.deepEqual(fs.readdirSync(dir), [], "nothing left behind");
});

test("header helpers: boundary, disposition parameters, file names", () => {
  assert.equal(boundaryOf('multipart/form-data; boundary="abc def"'), "abc def");
  assert.equal(boundaryOf("multipart/form-data; charset=utf-8; boundary=----x1"), "----x1");
  assert.equal(boundaryOf("application/json"), null);
  assert.deepEqual(dispositionParams('form-data; name="file"; filename="a \\"b\\".md"'), {
    name: "file",
    filename: 'a "b".md',
  });
  assert.deepEqual(dispositionParams("form-data; name=file; filename*=UTF-8''na%C3%AFve.txt; filename=\"naive.txt\""), {
    name: "file",
    filename: "naïve.txt",
  });
  assert.equal(cleanFilename("C:\\Users\\me\\notes.md"), "notes.md");
  assert.equal(cleanFilename("../../etc/passwd"), "passwd");
  assert.equal(cleanFilename("a%22b%0A.txt"), 'a"b.txt');
});

test("a file name with '..', an absolute path or a NUL refuses the whole upload, leaving nothing behind", async () => {
  for (const bad of [
    "../../etc/passwd",
    "..\\..\\boot.ini",
    "notes/../../../x.md",
    "/etc/passwd",
    "\\\\server\\share\\a.txt",
    "a\u0000.md",
    " .. ",
  ]) {
    assert.ok(filenameProblem(bad), bad);
  }
  for (const ok of ["notes.md", "C:\\Users\\me\\notes.md", "folder/notes.md", "..notes.md", "a..b.txt", "%00.txt"])
    assert.equal(filenameProblem(ok), null, ok);
  // A browser sends backslashes as themselves: they are not escapes (only \" and \\ are, from curl).
  assert.equal(dispositionParams('form-data; name="file"; filename="..\\..\\win.ini"').filename, "..\\..\\win.ini");
  assert.equal(
    dispositionParams('form-data; name="file"; filename="C:\\Users\\me\\notes.md"').filename,
    "C:\\Users\\me\\notes.md",
  );
  assert.equal(dispositionParams('form-data; name="file"; filename="a\\\\b\\"c.md"').filename, 'a\\b"c.md');
  const reject = (status: number, re: RegExp) => (e: unknown) =>
    e instanceof MultipartError && e.status === status && re.test(e.message);
  const dir = tmp();
  const form = new FormData();
  form.append("file", new Blob([fileBytes(10)]), "good.txt");
  form.append("file", new Blob([fileBytes(10)]), "../../evil.txt");
  await assert.rejects(
    readMultipart(await formRequest(form), { dir, maxFileBytes: 100 }),
    reject(400, /is a path with '\.\.'/),
  );
  assert.deepEqual(fs.readdirSync(dir), [], "the staged good file is removed too");
});
