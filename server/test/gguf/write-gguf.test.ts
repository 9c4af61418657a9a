/**
 * The GGUF writer: checked against node-llama-cpp's own GGUF parser, and its f16 / q8_0 encodings
 * against llama.cpp (the same seed in three encodings must give nearly the same vectors).
 *
 *   node --import tsx --test server/test/gguf/write-gguf.test.ts
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { readGgufFileInfo } from "node-llama-cpp";
import { loadNodeLlama } from "../../embedder/engines/node-llama";
import { f32ToF16Bits, syntheticWordPieceVocab, TINY_NOMIC_FILE, writeTinyNomicGguf } from "./write-gguf";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-gguf-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const sha = (f: string) => crypto.createHash("sha256").update(fs.readFileSync(f)).digest("hex");

test("f32 → f16 conversion rounds like ggml", () => {
  const cases: [number, number][] = [
    [0, 0x0000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.1, 0x2e66],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up to +inf
    [2 ** -14, 0x0400], // smallest normal
    [2 ** -24, 0x0001], // smallest subnormal
    [1e-9, 0x0000],
    [1 + 2 ** -11, 0x3c00], // tie → even
    [1 + 3 * 2 ** -11, 0x3c02], // tie → even (up)
    [Infinity, 0x7c00],
  ];
  for (const [x, bits] of cases) assert.equal(f32ToF16Bits(x), bits, `f16(${x})`);
  assert.equal(f32ToF16Bits(NaN) & 0x7c00, 0x7c00);
  assert.notEqual(f32ToF16Bits(NaN) & 0x03ff, 0);
});

test("the synthetic vocabulary has the BERT layout and exact sizes", () => {
  const tiny = syntheticWordPieceVocab();
  assert.ok(tiny.length > 300 && tiny.length < 600, `${tiny.length} tokens`);
  assert.deepEqual(
    [tiny[0], tiny[100], tiny[101], tiny[102], tiny[103]],
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
  );
  const full = syntheticWordPieceVocab(30522);
  assert.equal(full.length, 30522);
  assert.equal(new Set(full).size, 30522);
  assert.deepEqual(syntheticWordPieceVocab(30522), full, "deterministic");
  assert.ok(full.some((t) => t.startsWith("##") && t.length > 4));
});

test("a tiny nomic-bert GGUF that node-llama-cpp's parser reads back exactly", async () => {
  const file = path.join(dir, TINY_NOMIC_FILE);
  const info = writeTinyNomicGguf(file, { seed: 3 });
  assert.equal(info.bytes, fs.statSync(file).size);
  assert.ok(info.bytes < 1_000_000);
  const fi = await readGgufFileInfo(file, { readTensorInfo: true });
  assert.equal(fi.version, 3);
  const m = fi.metadata as unknown as Record<string, any>;
  assert.equal(m.general.architecture, "nomic-bert");
  assert.equal(m.general.file_type, 0);
  const nb = m["nomic-bert"];
  assert.equal(nb.embedding_length, 64);
  assert.equal(nb.block_count, 1);
  assert.equal(nb.attention.head_count, 4);
  assert.equal(nb.feed_forward_length, 256);
  assert.equal(nb.context_length, 2048);
  assert.equal(nb.attention.causal, false);
  assert.equal(nb.pooling_type, 1);
  assert.equal(m.tokenizer.ggml.model, "bert");
  assert.equal(m.tokenizer.ggml.tokens.length, info.vocab.length);
  assert.equal(m.tokenizer.ggml.tokens[101], "[CLS]");
  assert.equal(m.tokenizer.ggml.tokens[info.vocab.indexOf("memo")], "\u2581memo");
  assert.equal(m.tokenizer.ggml.tokens[info.vocab.indexOf("##s")], "s");
  assert.equal(m.tokenizer.ggml.cls_token_id, 101);
  assert.equal(m.tokenizer.ggml.seperator_token_id, 102);

  const tensors = fi.tensorInfo!;
  assert.deepEqual(
    tensors.map((t) => [t.name, t.dimensions.map(Number)]),
    [
      ["token_embd.weight", [64, info.vocab.length]],
      ["token_types.weight", [64, 2]],
      ["token_embd_norm.weight", [64]],
      ["token_embd_norm.bias", [64]],
      ["blk.0.attn_qkv.weight", [64, 192]],
      ["blk.0.attn_output.weight", [64, 64]],
      ["blk.0.attn_output_norm.weight", [64]],
      ["blk.0.attn_output_norm.bias", [64]],
      ["blk.0.ffn_up.weight", [64, 256]],
      ["blk.0.ffn_gate.weight", [64, 256]],
      ["blk.0.ffn_down.weight", [256, 64]],
      ["blk.0.layer_output_norm.weight", [64]],
      ["blk.0.layer_output_norm.bias", [64]],
    ],
  );
  const fd = fs.openSync(file, "r");
  try {
    for (const t of tensors) {
      assert.equal(Number(t.fileOffset) % 32, 0, `${t.name} is aligned`);
      assert.equal(t.ggmlType, 0);
    }
    const norm = tensors.find((t) => t.name === "token_embd_norm.weight")!;
    const buf = Buffer.alloc(64 * 4);
    fs.readSync(fd, buf, 0, buf.length, Number(norm.fileOffset));
    assert.ok(Array.from({ length: 64 }, (_, i) => buf.readFloatLE(i * 4)).every((x) => x === 1));
    const last = tensors.at(-1)!;
    assert.equal(Math.ceil((Number(last.fileOffset) + 64 * 4) / 32) * 32, info.bytes, "data ends the file");
  } finally {
    fs.closeSync(fd);
  }

  const again = path.join(dir, "again.gguf");
  writeTinyNomicGguf(again, { seed: 3, name: "nomic-embed-text-v1.5-test-tiny" });
  assert.equal(sha(again), sha(file), "same seed, same bytes");
  writeTinyNomicGguf(again, { seed: 4, name: "nomic-embed-text-v1.5-test-tiny" });
  assert.notEqual(sha(again), sha(file), "another seed, other weights");
});

test("f16 and q8_0 files load in llama.cpp and agree with the f32 one", async () => {
  const text = "search_document: the dentist appointment moved to friday";
  const vectors: Record<string, number[]> = {};
  for (const dtype of ["f32", "f16", "q8_0"] as const) {
    const file = path.join(dir, `nomic-embed-text-v1.5-test-${dtype}.gguf`);
    const info = writeTinyNomicGguf(file, { seed: 5, dtype });
    const fi = await readGgufFileInfo(file, { readTensorInfo: true });
    const want = { f32: 0, f16: 1, q8_0: 8 }[dtype];
    assert.equal(fi.tensorInfo!.find((t) => t.name === "blk.0.ffn_up.weight")!.ggmlType, want);
    assert.equal(
      fi.tensorInfo!.find((t) => t.name === "blk.0.layer_output_norm.weight")!.ggmlType,
      0,
      "norms stay f32",
    );
    const engine = await loadNodeLlama({ modelPath: file, gpu: false, threads: 1 });
    try {
      assert.equal(engine.dim, info.hidden);
      vectors[dtype] = (await engine.embed([text]))[0]!;
    } finally {
      await engine.close();
    }
  }
  const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0); // unit vectors
  assert.ok(cos(vectors.f32!, vectors.f16!) > 0.999, `f16 vs f32: ${cos(vectors.f32!, vectors.f16!)}`);
  assert.ok(cos(vectors.f32!, vectors.q8_0!) > 0.99, `q8_0 vs f32: ${cos(vectors.f32!, vectors.q8_0!)}`);
  assert.notDeepEqual(vectors.f32, vectors.f16);
});
