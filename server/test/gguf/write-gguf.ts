/**
 * Writes GGUF v3 files that llama.cpp loads: a `nomic-bert` sentence-embedding model (the architecture of
 * nomic-embed-text-v1.5) with a synthetic WordPiece ("bert") vocabulary and seeded random weights.
 *
 * Tests use the tiny shape (1 layer, 64 hidden, ~480 tokens: ~400 KB, written in milliseconds) to
 * exercise the real llama.cpp path without downloading anything; benchmarks use the full
 * nomic-embed-text-v1.5 shape (768 hidden, 12 layers, 12 heads, ffn 3072, 30522 tokens) to time it.
 * The vectors mean nothing: these files check plumbing and speed, never retrieval quality.
 *
 * Layout, key names and tensor shapes follow the llama.cpp bundled with node-llama-cpp 3.21.1
 * (ggml/include/gguf.h, src/llama-arch.cpp, src/models/nomic-bert.cpp, src/llama-vocab.cpp) and the
 * metadata of the published nomic-embed-text-v1.5 GGUF files.
 */
import fs from "node:fs";
import path from "node:path";

// ---------------------------------------------------------------------------------------------------------
// GGUF container

const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian uint32
const GGUF_VERSION = 3;
export const GGUF_ALIGNMENT = 32;

/** gguf_type */
export enum GgufType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** The ggml tensor types this writer can encode. */
export type TensorDtype = "f32" | "f16" | "q8_0";
const GGML_TYPE: Record<TensorDtype, number> = { f32: 0, f16: 1, q8_0: 8 };
/** llama_ftype stored as general.file_type. */
const LLAMA_FTYPE: Record<TensorDtype, number> = { f32: 0, f16: 1, q8_0: 7 };

type ScalarType = Exclude<GgufType, GgufType.ARRAY>;
export type GgufKv =
  | { type: ScalarType; value: number | bigint | boolean | string }
  | { type: GgufType.ARRAY; itemType: ScalarType; value: readonly (number | bigint | boolean | string)[] };

export interface GgufTensor {
  name: string;
  /** ggml order: ne[0] (the contiguous row length) first. */
  dims: number[];
  dtype: TensorDtype;
  /** Fills `out` with the float values of elements [start, start + out.length) in row-major ggml order. */
  fill: (out: Float32Array, start: number) => void;
}

function tensorElements(t: GgufTensor): number {
  return t.dims.reduce((a, b) => a * b, 1);
}

function tensorBytes(t: GgufTensor): number {
  const n = tensorElements(t);
  switch (t.dtype) {
    case "f32":
      return n * 4;
    case "f16":
      return n * 2;
    case "q8_0":
      if (t.dims[0]! % 32 !== 0) throw new Error(`${t.name}: q8_0 needs rows that are a multiple of 32`);
      return (n / 32) * 34;
  }
}

const align = (n: number, a = GGUF_ALIGNMENT) => Math.ceil(n / a) * a;

/** Little-endian byte builder for the header. */
class Bytes {
  private parts: Buffer[] = [];
  size = 0;
  private push(b: Buffer) {
    this.parts.push(b);
    this.size += b.length;
  }
  u8(v: number) {
    const b = Buffer.alloc(1);
    b.writeUInt8(v);
    this.push(b);
  }
  i8(v: number) {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    this.push(b);
  }
  u16(v: number) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(v);
    this.push(b);
  }
  i16(v: number) {
    const b = Buffer.alloc(2);
    b.writeInt16LE(v);
    this.push(b);
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  f32(v: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  f64(v: number) {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.push(b);
  }
  u64(v: number | bigint) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  i64(v: number | bigint) {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(v));
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.push(b);
  }
  zeros(n: number) {
    if (n > 0) this.push(Buffer.alloc(n));
  }
  concat(): Buffer {
    return Buffer.concat(this.parts, this.size);
  }
}

function writeScalar(out: Bytes, type: ScalarType, v: number | bigint | boolean | string, key: string) {
  const num = () => {
    if (typeof v !== "number") throw new Error(`${key}: expected a number`);
    return v;
  };
  switch (type) {
    case GgufType.UINT8:
      return out.u8(num());
    case GgufType.INT8:
      return out.i8(num());
    case GgufType.UINT16:
      return out.u16(num());
    case GgufType.INT16:
      return out.i16(num());
    case GgufType.UINT32:
      return out.u32(num());
    case GgufType.INT32:
      return out.i32(num());
    case GgufType.FLOAT32:
      return out.f32(num());
    case GgufType.FLOAT64:
      return out.f64(num());
    case GgufType.UINT64:
      return out.u64(typeof v === "bigint" ? v : num());
    case GgufType.INT64:
      return out.i64(typeof v === "bigint" ? v : num());
    case GgufType.BOOL:
      if (typeof v !== "boolean") throw new Error(`${key}: expected a boolean`);
      return out.u8(v ? 1 : 0);
    case GgufType.STRING:
      if (typeof v !== "string") throw new Error(`${key}: expected a string`);
      return out.str(v);
  }
}

/** IEEE 754 binary16 bits of a float32, round to nearest even (ggml's GGML_FP32_TO_FP16). */
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);
export function f32ToF16Bits(value: number): number {
  f32buf[0] = value;
  const x = u32buf[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf / nan
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow to inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow to zero
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // may carry into the exponent: still correct
  return sign | half;
}

function encode(dtype: TensorDtype, src: Float32Array): Buffer {
  switch (dtype) {
    case "f32":
      return Buffer.from(src.buffer, src.byteOffset, src.byteLength);
    case "f16": {
      const b = Buffer.alloc(src.length * 2);
      for (let i = 0; i < src.length; i++) b.writeUInt16LE(f32ToF16Bits(src[i]!), i * 2);
      return b;
    }
    case "q8_0": {
      // block_q8_0: fp16 scale d, then 32 int8 quants; x ≈ d * q
      const blocks = src.length / 32;
      const b = Buffer.alloc(blocks * 34);
      for (let k = 0; k < blocks; k++) {
        let amax = 0;
        for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(src[k * 32 + j]!));
        const d = amax / 127;
        const id = d ? 1 / d : 0;
        b.writeUInt16LE(f32ToF16Bits(d), k * 34);
        for (let j = 0; j < 32; j++) b.writeInt8(Math.round(src[k * 32 + j]! * id), k * 34 + 2 + j);
      }
      return b;
    }
  }
}

/**
 * Write a GGUF v3 file: header, key/value metadata, tensor infos, then each tensor's data aligned to 32
 * bytes. Tensor data is generated and written in chunks, so multi-hundred-MB models need little memory.
 * Returns the file size in bytes.
 */
export function writeGguf(file: string, kv: Record<string, GgufKv>, tensors: GgufTensor[]): number {
  const h = new Bytes();
  h.u32(GGUF_MAGIC);
  h.u32(GGUF_VERSION);
  h.u64(tensors.length);
  h.u64(Object.keys(kv).length);
  for (const [key, entry] of Object.entries(kv)) {
    h.str(key);
    h.u32(entry.type);
    if (entry.type === GgufType.ARRAY) {
      h.u32(entry.itemType);
      h.u64(entry.value.length);
      for (const v of entry.value) writeScalar(h, entry.itemType, v, key);
    } else {
      writeScalar(h, entry.type, entry.value, key);
    }
  }
  let offset = 0;
  const offsets: number[] = [];
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`duplicate tensor ${t.name}`);
    names.add(t.name);
    h.str(t.name);
    h.u32(t.dims.length);
    for (const d of t.dims) h.u64(d);
    h.u32(GGML_TYPE[t.dtype]);
    h.u64(offset);
    offsets.push(offset);
    offset = align(offset + tensorBytes(t));
  }
  h.zeros(align(h.size) - h.size);

  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    let pos = 0;
    const put = (b: Buffer) => {
      let done = 0;
      while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, pos + done);
      pos += b.length;
    };
    put(h.concat());
    const dataStart = pos;
    for (let i = 0; i < tensors.length; i++) {
      const t = tensors[i]!;
      if (pos !== dataStart + offsets[i]!) throw new Error("internal: tensor offset mismatch");
      const n = tensorElements(t);
      const row = t.dims[0]!;
      // whole rows per chunk (q8_0 blocks never straddle a row), about a million values at a time
      const chunk = Math.max(row, Math.floor((1 << 20) / row) * row);
      const buf = new Float32Array(chunk);
      for (let start = 0; start < n; start += chunk) {
        const part = start + chunk <= n ? buf : buf.subarray(0, n - start);
        t.fill(part, start);
        put(encode(t.dtype, part));
      }
      const padded = align(pos - dataStart) + dataStart;
      if (padded > pos) put(Buffer.alloc(padded - pos));
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return fs.statSync(file).size;
}

// ---------------------------------------------------------------------------------------------------------
// Seeded random numbers

function hashString(s: string, seed: number): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: small, fast, deterministic; uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values uniform in ±std·√3 (standard deviation `std`), from a stream seeded by (seed, tensor name). */
function randomFill(name: string, seed: number, std: number): GgufTensor["fill"] {
  const rng = mulberry32(hashString(name, seed));
  const a = std * Math.sqrt(3);
  let next = 0; // fill() is called with consecutive ranges; a restart re-seeds
  let state = rng;
  return (out, start) => {
    if (start !== next) {
      state = mulberry32(hashString(name, seed));
      for (let i = 0; i < start; i++) state();
    }
    for (let i = 0; i < out.length; i++) out[i] = (state() * 2 - 1) * a;
    next = start + out.length;
  };
}

const constFill =
  (v: number): GgufTensor["fill"] =>
  (out) =>
    out.fill(v);

// ---------------------------------------------------------------------------------------------------------
// Synthetic WordPiece vocabulary

/** HF BERT layout: [PAD]=0, [unused0..98]=1..99, [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103. */
export const BERT_SPECIAL_IDS = { pad: 0, unk: 100, cls: 101, sep: 102, mask: 103 } as const;

const COMMON_WORDS = `the of and to a in is it you that he was for on are with as i his they be at one have this from
or had by hot word but what some we can out other were all there when up use your how said an each she which do their
time if will way about many then them write would like so these her long make thing see him two has look more day could
go come did number sound no most people my over know water than call first who may down side been now find any new work
part take get place made live where after back little only round man year came show every good me give our under name
very through just form sentence great think say help low line differ turn cause much mean before move right boy old too
same tell does set three want air well also play small end put home read hand port large spell add even land here must
big high such follow act why ask men change went light kind off need house picture try us again animal point mother
world near build self earth father head stand own page should country found answer school grow study still learn plant
cover food sun four between state keep eye never last let thought city tree cross farm hard start might story saw far sea
draw left late run while press close night real life few north open seem together next white children begin got walk
example ease paper group always music those both mark often letter until mile river car feet care second book carry took
science eat room friend began idea fish mountain stop once base hear horse cut sure watch color face wood main enough
plain girl usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song
measure door product black short numeral class wind question happen complete ship area half rock order fire south
problem piece told knew pass since top whole king space heard best hour better true during hundred five remember step
early hold west ground interest reach fast verb sing listen six table travel less morning ten simple several vowel toward
war lay against pattern slow center love person money serve appear road map rain rule govern pull cold notice voice
unit power town fine certain fly fall lead cry dark machine note wait plan figure star box noun field rest correct able
pound done beauty drive stood contain front teach week final gave green oh quick develop ocean warm free minute strong
special mind behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object decide
surface deep moon island foot system busy test record boat common gold possible plane stead dry wonder laugh thousand
ago ran check game shape equate miss brought heat snow tire bring yes distant fill east paint language among grand ball
yet wave drop heart am present heavy dance engine position arm wide sail material size vary settle speak weight general
ice matter circle pair include divide syllable felt perhaps pick sudden count square reason length represent art subject
region energy hunt probable bed brother egg ride cell believe fraction forest sit race window store summer train sleep
prove lone leg exercise wall catch mount wish sky board joy winter sat written wild instrument kept glass grass cow job
edge sign visit past soft fun bright gas weather month million bear finish happy hope flower clothe strange gone jump
baby eight village meet root buy raise solve metal whether push seven paragraph third shall held hair describe cook floor
either result burn hill safe cat century consider type law bit coast copy phrase silent tall sand soil roll temperature
finger industry value fight lie beat excite natural view sense ear else quite broke case middle kill son lake moment
scale loud spring observe child straight consonant nation dictionary milk speed method organ pay age section dress cloud
surprise quiet stone tiny climb cool design poor lot experiment bottom key iron single stick flat twenty skin smile
crease hole trade melody trip office receive row mouth exact symbol die least trouble shout except wrote seed tone join
suggest clean break lady yard rise bad blow oil blood touch grew cent mix team wire cost lost brown wear garden equal
sent choose fell fit flow fair bank collect save control decimal gentle woman captain practice separate difficult doctor
please protect noon whose locate ring character insect caught period indicate radio spoke atom human history effect
electric expect crop modern element hit student corner party supply bone rail imagine provide agree thus capital chair
danger fruit rich thick soldier process operate guess necessary sharp wing create neighbor wash bat rather crowd corn
compare poem string bell depend meat rub tube famous dollar stream fear sight thin triangle planet hurry chief colony
clock mine tie enter major fresh search send yellow gun allow print dead spot desert suit current lift rose continue
block chart hat sell success company subtract event particular deal swim term opposite wife shoe shoulder spread arrange
camp invent cotton born determine quart nine truck noise level chance gather shop stretch throw shine property column
molecule select wrong gray repeat require broad prepare salt nose plural anger claim continent oxygen sugar death pretty
skill women season solution magnet silver thank branch match suffix especially fig afraid huge sister steel discuss
forward similar guide experience score apple bought led pitch coat mass card band rope slip win dream evening condition
feed tool total basic smell valley nor double seat arrive master track parent shore division sheet substance favor
connect post spend chord fat glad original share station dad bread charge proper bar offer segment slave duck instant
market degree populate chick dear enemy reply drink occur support speech nature range steam motion path liquid log
meant quotient teeth shell neck`
  .split(/\s+/)
  .filter(Boolean);

/** Words the app's own tests and prefixes use, so they tokenize as whole words in the tiny vocabulary. */
const DOMAIN_WORDS =
  `search query document memo memory chat note notes remind meeting project deadline coffee tea email phone message weekend monday tuesday wednesday thursday friday saturday sunday january february march april june
july august september october november december birthday allergy peanut doctor dentist appointment flight hotel ticket
password server database model vector embedding token python javascript typescript code bug fix deploy release`
    .split(/\s+/)
    .filter(Boolean);

const SUFFIXES = [
  "s",
  "es",
  "ed",
  "ing",
  "er",
  "est",
  "ly",
  "tion",
  "ment",
  "ness",
  "able",
  "ful",
  "less",
  "ity",
  "al",
  "ize",
  "ous",
  "ive",
];

/**
 * A BERT-style uncased vocabulary (HF spelling: "##x" marks a word-continuation piece): the HF special-token
 * layout, every ASCII letter/digit/punctuation as a word start and letters/digits as continuations (so any
 * ASCII text tokenizes without [UNK]), a few suffix pieces and English words. Without `size`: ~480 tokens.
 * With `size` (≥ ~1300): exactly that many, filled up with deterministic pseudo-words (30522 gives the shape
 * of bert-base-uncased).
 */
export function syntheticWordPieceVocab(size?: number): string[] {
  const out: string[] = ["[PAD]"];
  for (let i = 0; i < 99; i++) out.push(`[unused${i}]`);
  out.push("[UNK]", "[CLS]", "[SEP]", "[MASK]");
  const seen = new Set(out);
  const add = (t: string) => {
    if (!seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  };
  const punct = `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;
  for (const c of punct) add(c);
  for (const c of "0123456789abcdefghijklmnopqrstuvwxyz") add(c);
  for (const c of "0123456789abcdefghijklmnopqrstuvwxyz") add(`##${c}`);
  for (const s of SUFFIXES) add(`##${s}`);
  for (const w of DOMAIN_WORDS) add(w);
  if (size === undefined) {
    // the tiny default: a few hundred tokens
    for (const w of COMMON_WORDS.slice(0, 200)) add(w);
    return out;
  }
  for (const w of COMMON_WORDS) add(w);
  const base = out.length;
  if (size < base) throw new Error(`a synthetic vocabulary needs at least ${base} tokens`);
  const onsets = "b c d f g h j k l m n p r s t v w z bl br ch cl cr dr fl fr gr pl pr sh sk sl sp st str th tr".split(
    " ",
  );
  const vowels = "a e i o u ai ea ee oo ou".split(" ");
  const codas = ["", "n", "r", "s", "t", "l", "m", "nd", "st", "ck"];
  const rng = mulberry32(0x5eed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rng() * xs.length)]!;
  while (out.length < size) {
    const syll = 1 + Math.floor(rng() * 3);
    let w = "";
    for (let i = 0; i < syll; i++) w += pick(onsets) + pick(vowels) + pick(codas);
    add(rng() < 0.2 ? `##${w}` : w);
  }
  return out;
}

/** HF token spelling → llama.cpp's (convert_hf_to_gguf.py BertModel): "##x" → "x", "x" → "▁x", "[X]" kept. */
function toLlamaToken(t: string): string {
  if (t.startsWith("[") && t.endsWith("]")) return t;
  if (t.startsWith("##")) return t.slice(2);
  return `\u2581${t}`;
}

// ---------------------------------------------------------------------------------------------------------
// nomic-bert

export interface NomicGgufOptions {
  /** n_embd; also the length of the output vectors. Default 64. */
  hidden?: number;
  /** Transformer blocks. Default 1. */
  layers?: number;
  /** Attention heads; hidden / heads must be even (RoPE). Default 4. */
  heads?: number;
  /** Feed-forward (SwiGLU) width. Default 4 × hidden. */
  ffn?: number;
  /** Token count of a synthetic WordPiece vocabulary, or the tokens themselves (HF spelling). Default: ~420. */
  vocab?: number | string[];
  /** Weight seed: the same seed and shape give byte-identical files. Default 1. */
  seed?: number;
  /** Type of the 2-D weight matrices (norms stay f32, as in the published files). Default f32. */
  dtype?: TensorDtype;
  /** nomic-bert.context_length (n_ctx_train). Default 2048. */
  contextLength?: number;
  /** general.name. */
  name?: string;
  /** Standard deviation of the random weights. Default 0.05. */
  std?: number;
}

/** The shape of nomic-embed-text-v1.5 (137M parameters). */
export const NOMIC_V15_SHAPE = {
  hidden: 768,
  layers: 12,
  heads: 12,
  ffn: 3072,
  vocab: 30522,
  contextLength: 2048,
} as const;
/** The tiny test shape. */
export const TINY_NOMIC_SHAPE = { hidden: 64, layers: 1, heads: 4, ffn: 256 } as const;
/** File name of the tiny model: starts with nomic-embed-text-v1.5 so the app treats it (prefixes) as nomic. */
export const TINY_NOMIC_FILE = "nomic-embed-text-v1.5-test-tiny.gguf";

export interface NomicGgufInfo {
  file: string;
  bytes: number;
  hidden: number;
  layers: number;
  heads: number;
  ffn: number;
  contextLength: number;
  dtype: TensorDtype;
  /** Tokens in HF spelling, index = token id. */
  vocab: string[];
  parameters: number;
}

/**
 * Write a `nomic-bert` embedding model (mean pooling, non-causal attention, RoPE base 1000, SwiGLU FFN,
 * post-layer-norm) with seeded random weights. Defaults give the tiny test model; pass NOMIC_V15_SHAPE
 * (and dtype "f16" or "q8_0") for a file of the real model's size and speed.
 */
export function writeNomicGguf(file: string, opts: NomicGgufOptions = {}): NomicGgufInfo {
  const hidden = opts.hidden ?? TINY_NOMIC_SHAPE.hidden;
  const layers = opts.layers ?? TINY_NOMIC_SHAPE.layers;
  const heads = opts.heads ?? TINY_NOMIC_SHAPE.heads;
  const ffn = opts.ffn ?? hidden * 4;
  const ctxLen = opts.contextLength ?? 2048;
  const seed = opts.seed ?? 1;
  const dtype = opts.dtype ?? "f32";
  const std = opts.std ?? 0.05;
  const vocab = Array.isArray(opts.vocab) ? opts.vocab : syntheticWordPieceVocab(opts.vocab);
  if (hidden % heads !== 0 || (hidden / heads) % 2 !== 0) {
    throw new Error(`hidden (${hidden}) must split into ${heads} heads of even size`);
  }
  if (dtype === "q8_0" && (hidden % 32 !== 0 || ffn % 32 !== 0)) {
    throw new Error("q8_0 needs hidden and ffn to be multiples of 32");
  }
  for (const [k, id] of Object.entries(BERT_SPECIAL_IDS)) {
    const want = { pad: "[PAD]", unk: "[UNK]", cls: "[CLS]", sep: "[SEP]", mask: "[MASK]" }[k];
    if (vocab[id] !== want) throw new Error(`vocab[${id}] must be ${want} (BERT layout)`);
  }
  const llamaTokens = vocab.map(toLlamaToken);
  if (new Set(llamaTokens).size !== llamaTokens.length) throw new Error("vocabulary has duplicate tokens");

  const arch = "nomic-bert";
  const u32 = (value: number): GgufKv => ({ type: GgufType.UINT32, value });
  const kv: Record<string, GgufKv> = {
    "general.architecture": { type: GgufType.STRING, value: arch },
    "general.name": { type: GgufType.STRING, value: opts.name ?? path.basename(file).replace(/\.gguf$/i, "") },
    "general.description": {
      type: GgufType.STRING,
      value: `synthetic ${arch} with random weights (seed ${seed}) for tests and benchmarks; its vectors mean nothing`,
    },
    "general.file_type": u32(LLAMA_FTYPE[dtype]),
    "general.quantization_version": u32(2),
    "general.alignment": u32(GGUF_ALIGNMENT),
    [`${arch}.block_count`]: u32(layers),
    [`${arch}.context_length`]: u32(ctxLen),
    [`${arch}.embedding_length`]: u32(hidden),
    [`${arch}.feed_forward_length`]: u32(ffn),
    [`${arch}.attention.head_count`]: u32(heads),
    [`${arch}.attention.layer_norm_epsilon`]: { type: GgufType.FLOAT32, value: 1e-12 },
    [`${arch}.attention.causal`]: { type: GgufType.BOOL, value: false },
    [`${arch}.pooling_type`]: u32(1), // LLAMA_POOLING_TYPE_MEAN
    [`${arch}.rope.freq_base`]: { type: GgufType.FLOAT32, value: 1000 },
    "tokenizer.ggml.model": { type: GgufType.STRING, value: "bert" },
    "tokenizer.ggml.tokens": { type: GgufType.ARRAY, itemType: GgufType.STRING, value: llamaTokens },
    "tokenizer.ggml.scores": { type: GgufType.ARRAY, itemType: GgufType.FLOAT32, value: llamaTokens.map(() => 0) },
    "tokenizer.ggml.token_type": {
      type: GgufType.ARRAY,
      itemType: GgufType.INT32,
      // llama_token_type: 1 normal, 2 unknown, 3 control, 5 unused
      value: vocab.map((t, i) =>
        i === BERT_SPECIAL_IDS.unk ? 2 : /^\[unused\d+\]$/.test(t) ? 5 : /^\[[A-Z]+\]$/.test(t) ? 3 : 1,
      ),
    },
    "tokenizer.ggml.token_type_count": u32(2),
    "tokenizer.ggml.bos_token_id": u32(BERT_SPECIAL_IDS.cls),
    "tokenizer.ggml.eos_token_id": u32(BERT_SPECIAL_IDS.sep),
    "tokenizer.ggml.unknown_token_id": u32(BERT_SPECIAL_IDS.unk),
    "tokenizer.ggml.seperator_token_id": u32(BERT_SPECIAL_IDS.sep),
    "tokenizer.ggml.padding_token_id": u32(BERT_SPECIAL_IDS.pad),
    "tokenizer.ggml.cls_token_id": u32(BERT_SPECIAL_IDS.cls),
    "tokenizer.ggml.mask_token_id": u32(BERT_SPECIAL_IDS.mask),
  };

  const matrix = (name: string, dims: number[]): GgufTensor => ({
    name,
    dims,
    dtype,
    fill: randomFill(name, seed, std),
  });
  const vec = (name: string, n: number, v: number): GgufTensor => ({
    name,
    dims: [n],
    dtype: "f32",
    fill: constFill(v),
  });
  const tensors: GgufTensor[] = [
    matrix("token_embd.weight", [hidden, vocab.length]),
    { name: "token_types.weight", dims: [hidden, 2], dtype: "f32", fill: randomFill("token_types.weight", seed, std) },
    vec("token_embd_norm.weight", hidden, 1),
    vec("token_embd_norm.bias", hidden, 0),
  ];
  for (let i = 0; i < layers; i++) {
    tensors.push(
      matrix(`blk.${i}.attn_qkv.weight`, [hidden, 3 * hidden]),
      matrix(`blk.${i}.attn_output.weight`, [hidden, hidden]),
      vec(`blk.${i}.attn_output_norm.weight`, hidden, 1),
      vec(`blk.${i}.attn_output_norm.bias`, hidden, 0),
      matrix(`blk.${i}.ffn_up.weight`, [hidden, ffn]),
      matrix(`blk.${i}.ffn_gate.weight`, [hidden, ffn]),
      matrix(`blk.${i}.ffn_down.weight`, [ffn, hidden]),
      vec(`blk.${i}.layer_output_norm.weight`, hidden, 1),
      vec(`blk.${i}.layer_output_norm.bias`, hidden, 0),
    );
  }
  const bytes = writeGguf(file, kv, tensors);
  return {
    file,
    bytes,
    hidden,
    layers,
    heads,
    ffn,
    contextLength: ctxLen,
    dtype,
    vocab,
    parameters: tensors.reduce((s, t) => s + tensorElements(t), 0),
  };
}

/** The tiny test model (or any shape: see writeNomicGguf). Name the file `nomic-embed-text-v1.5-test*.gguf`. */
export function writeTinyNomicGguf(file: string, opts: NomicGgufOptions = {}): NomicGgufInfo {
  return writeNomicGguf(file, { ...TINY_NOMIC_SHAPE, ...opts });
}

/** A file with the full nomic-embed-text-v1.5 shape and random weights, for timing. */
export function writeFullNomicGguf(
  file: string,
  opts: Omit<NomicGgufOptions, keyof typeof NOMIC_V15_SHAPE> = {},
): NomicGgufInfo {
  return writeNomicGguf(file, { dtype: "f16", ...opts, ...NOMIC_V15_SHAPE });
}
