/**
 * Writes a tiny `llama`-architecture chat model as GGUF v3 that llama.cpp loads: a SentencePiece-style
 * ("llama") vocabulary with byte fallback, ChatML special tokens and a ChatML `tokenizer.chat_template`,
 * and seeded random weights. Tests use it to drive the real local chat path (node-llama-cpp or a native
 * llama-server speaking the OpenAI chat-completions API) without downloading anything. Its replies are
 * gibberish: it checks plumbing (loading, templating, streaming, stopping), never meaning.
 *
 * Key names and tensor shapes follow the llama.cpp bundled with node-llama-cpp 3.21.1 (src/llama-arch.cpp,
 * src/models/llama.cpp, src/llama-vocab.cpp). The container is written by write-gguf.ts.
 */
import path from "node:path";
import { GgufType, mulberry32, writeGguf, type GgufKv, type GgufTensor, type TensorDtype } from "./write-gguf";

/** ChatML, as Qwen and many others ship it; node-llama-cpp and llama-server both recognise it. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export const TINY_LLAMA_FILE = "tiny-llama-chat-test.gguf";

/** llama_token_type */
const TT = { normal: 1, unknown: 2, control: 3, userDefined: 4, byte: 6 } as const;

const WORDS = `the of and to a in is it you that he was for on are with as his they be at one have this from or had by
word but what some we can out other were all there when up use your how said an each she which do their time if will
way about many then them would like so these her long make thing see him two has look more day could go come did
number sound no most people my over know water than call first who may down side been now find any new work part take
get place made live where after back little only round man year came show every good me give our under name very
through just form great think say help low line turn cause much mean before move right boy old too same tell does set
three want air well also play small end put home read hand large add even land here must big high such follow act why
ask men change went light kind off need house picture try us again animal point mother world near build self earth
memo memory chat hello remember tea coffee dog cat park`
  .split(/\s+/)
  .filter(Boolean);

export interface TinyLlamaVocab {
  tokens: string[];
  scores: number[];
  types: number[];
  ids: { unk: number; bos: number; eos: number; imStart: number; imEnd: number };
}

/**
 * An SPM vocabulary: <unk>, <s>, </s>, the ChatML control tokens, the 256 byte-fallback tokens, every
 * printable ASCII character, then English words with every prefix of each (SPM merges bigrams found in
 * the vocabulary, so a word is reachable only through pieces that exist). Longer pieces score higher.
 */
export function tinyLlamaVocab(): TinyLlamaVocab {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const seen = new Set<string>();
  const add = (t: string, type: number, score = 0) => {
    if (seen.has(t)) return;
    seen.add(t);
    tokens.push(t);
    scores.push(score);
    types.push(type);
  };
  add("<unk>", TT.unknown);
  add("<s>", TT.control);
  add("</s>", TT.control);
  add("<|im_start|>", TT.control);
  add("<|im_end|>", TT.control);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`, TT.byte);
  add("\u2581", TT.normal, -1);
  for (let c = 33; c < 127; c++) add(String.fromCharCode(c), TT.normal, -1);
  for (const w of WORDS) {
    const piece = `\u2581${w}`;
    for (let n = 2; n <= piece.length; n++) add(piece.slice(0, n), TT.normal, n);
    for (let n = 2; n <= w.length; n++) add(w.slice(0, n), TT.normal, n - 0.5);
  }
  return {
    tokens,
    scores,
    types,
    ids: { unk: 0, bos: 1, eos: 2, imStart: 3, imEnd: 4 },
  };
}

export interface TinyLlamaOptions {
  /** n_embd. Default 64. */
  hidden?: number;
  /** Transformer blocks. Default 2. */
  layers?: number;
  /** Attention heads; hidden / heads is the head size (even, for RoPE). Default 4. */
  heads?: number;
  /** KV heads (grouped-query attention when fewer than heads). Default 2. */
  kvHeads?: number;
  /** Feed-forward (SwiGLU) width. Default 128. */
  ffn?: number;
  /** llama.context_length. Default 2048. */
  contextLength?: number;
  /** Weight seed: same seed and shape give byte-identical files. Default 1. */
  seed?: number;
  /** Type of the 2-D weight matrices (norms stay f32). Default f32. */
  dtype?: TensorDtype;
  /** Standard deviation of the random weights. Default 0.08. */
  std?: number;
  /** tokenizer.chat_template. Default: ChatML. */
  chatTemplate?: string;
}

export interface TinyLlamaInfo {
  file: string;
  bytes: number;
  hidden: number;
  layers: number;
  heads: number;
  kvHeads: number;
  ffn: number;
  contextLength: number;
  vocab: TinyLlamaVocab;
}

function hashString(s: string, seed: number): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Uniform in ±std·√3, from a stream seeded by (seed, tensor name); fill() gets consecutive ranges. */
function randomFill(name: string, seed: number, std: number): GgufTensor["fill"] {
  const a = std * Math.sqrt(3);
  let state = mulberry32(hashString(name, seed));
  let next = 0;
  return (out, start) => {
    if (start !== next) {
      state = mulberry32(hashString(name, seed));
      for (let i = 0; i < start; i++) state();
    }
    for (let i = 0; i < out.length; i++) out[i] = (state() * 2 - 1) * a;
    next = start + out.length;
  };
}

/** Write the tiny chat model. Defaults: 2 layers, 64 hidden, ~1,100 tokens, well under 1 MB. */
export function writeTinyLlamaGguf(file: string, opts: TinyLlamaOptions = {}): TinyLlamaInfo {
  const hidden = opts.hidden ?? 64;
  const layers = opts.layers ?? 2;
  const heads = opts.heads ?? 4;
  const kvHeads = opts.kvHeads ?? 2;
  const ffn = opts.ffn ?? 128;
  const ctxLen = opts.contextLength ?? 2048;
  const seed = opts.seed ?? 1;
  const dtype = opts.dtype ?? "f32";
  const std = opts.std ?? 0.08;
  const headDim = hidden / heads;
  if (!Number.isInteger(headDim) || headDim % 2 !== 0)
    throw new Error(`hidden (${hidden}) must split into ${heads} heads of even size`);
  if (heads % kvHeads !== 0) throw new Error(`heads (${heads}) must be a multiple of kvHeads (${kvHeads})`);
  const vocab = tinyLlamaVocab();
  const n = vocab.tokens.length;

  const arch = "llama";
  const u32 = (value: number): GgufKv => ({ type: GgufType.UINT32, value });
  const f32 = (value: number): GgufKv => ({ type: GgufType.FLOAT32, value });
  const kv: Record<string, GgufKv> = {
    "general.architecture": { type: GgufType.STRING, value: arch },
    "general.name": { type: GgufType.STRING, value: path.basename(file).replace(/\.gguf$/i, "") },
    "general.description": {
      type: GgufType.STRING,
      value: `synthetic ${arch} chat model with random weights (seed ${seed}) for tests; its replies mean nothing`,
    },
    "general.file_type": u32(dtype === "f32" ? 0 : dtype === "f16" ? 1 : 7),
    "general.quantization_version": u32(2),
    "general.alignment": u32(32),
    [`${arch}.vocab_size`]: u32(n),
    [`${arch}.context_length`]: u32(ctxLen),
    [`${arch}.embedding_length`]: u32(hidden),
    [`${arch}.block_count`]: u32(layers),
    [`${arch}.feed_forward_length`]: u32(ffn),
    [`${arch}.attention.head_count`]: u32(heads),
    [`${arch}.attention.head_count_kv`]: u32(kvHeads),
    [`${arch}.rope.dimension_count`]: u32(headDim),
    [`${arch}.rope.freq_base`]: f32(10000),
    [`${arch}.attention.layer_norm_rms_epsilon`]: f32(1e-5),
    "tokenizer.ggml.model": { type: GgufType.STRING, value: "llama" },
    "tokenizer.ggml.tokens": { type: GgufType.ARRAY, itemType: GgufType.STRING, value: vocab.tokens },
    "tokenizer.ggml.scores": { type: GgufType.ARRAY, itemType: GgufType.FLOAT32, value: vocab.scores },
    "tokenizer.ggml.token_type": { type: GgufType.ARRAY, itemType: GgufType.INT32, value: vocab.types },
    "tokenizer.ggml.bos_token_id": u32(vocab.ids.bos),
    "tokenizer.ggml.eos_token_id": u32(vocab.ids.imEnd),
    "tokenizer.ggml.unknown_token_id": u32(vocab.ids.unk),
    "tokenizer.ggml.padding_token_id": u32(vocab.ids.eos),
    "tokenizer.ggml.add_bos_token": { type: GgufType.BOOL, value: false },
    "tokenizer.ggml.add_eos_token": { type: GgufType.BOOL, value: false },
    "tokenizer.chat_template": { type: GgufType.STRING, value: opts.chatTemplate ?? CHATML_TEMPLATE },
  };

  const matrix = (name: string, dims: number[]): GgufTensor => ({
    name,
    dims,
    dtype,
    fill: randomFill(name, seed, std),
  });
  const ones = (name: string, len: number): GgufTensor => ({
    name,
    dims: [len],
    dtype: "f32",
    fill: (out) => out.fill(1),
  });
  const kvDim = headDim * kvHeads;
  const tensors: GgufTensor[] = [
    matrix("token_embd.weight", [hidden, n]),
    ones("output_norm.weight", hidden),
    matrix("output.weight", [hidden, n]),
  ];
  for (let i = 0; i < layers; i++) {
    tensors.push(
      ones(`blk.${i}.attn_norm.weight`, hidden),
      matrix(`blk.${i}.attn_q.weight`, [hidden, hidden]),
      matrix(`blk.${i}.attn_k.weight`, [hidden, kvDim]),
      matrix(`blk.${i}.attn_v.weight`, [hidden, kvDim]),
      matrix(`blk.${i}.attn_output.weight`, [hidden, hidden]),
      ones(`blk.${i}.ffn_norm.weight`, hidden),
      matrix(`blk.${i}.ffn_gate.weight`, [hidden, ffn]),
      matrix(`blk.${i}.ffn_up.weight`, [hidden, ffn]),
      matrix(`blk.${i}.ffn_down.weight`, [ffn, hidden]),
    );
  }
  const bytes = writeGguf(file, kv, tensors);
  return { file, bytes, hidden, layers, heads, kvHeads, ffn, contextLength: ctxLen, vocab };
}
