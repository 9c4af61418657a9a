/**
 * Stage 3: sections → chunks of about 512 tokens with about 10% overlap, tokens counted by the embedding
 * model's own tokenizer (Embedder.tokenize → the embedding server's /tokenize).
 *
 * How the tokenizer is used sparingly:
 * - text is cut into small units (sentences, merged up to ~200 characters, hard-split past 400) that
 *   concatenate back to the exact source text; each distinct unit is tokenized once (cached), several
 *   requests in flight at a time. A chunk's token count is the sum of its units' counts (exact for
 *   tokenizers that split on whitespace first — SentencePiece, WordPiece, BPE pre-tokenisers — within a
 *   token or two per chunk otherwise), so no chunk is ever tokenized again.
 * - tokenizing small units is also the cheap way: some tokenizers (USE-lite's) cost grows faster than
 *   linearly with input length, and one whole-document call would be far slower than thousands of small ones.
 * Packing: a section (Markdown heading) that fits in the chunk being filled joins it; otherwise it starts
 * a new chunk, and a section longer than one chunk is cut into windows whose overlap is the run of
 * trailing units closest to 10% of the chunk size. Continuation windows repeat the section's heading line.
 */
import type { Embedder } from "../core/context";
import type { Section } from "./section";

export const CHUNK_TOKENS = 512;
export const OVERLAP_RATIO = 0.1;
/** Sentences are merged into units up to this many characters (fewer tokenizer calls)… */
export const UNIT_TARGET_CHARS = 200;
/** …and longer ones are split at whitespace to at most this many. */
export const UNIT_MAX_CHARS = 400;
/**
 * A chunk also holds at most this many characters per token of its limit (4,096 for 512 tokens): whitespace
 * costs no tokens, so without it a run of 100,000 spaces went to the embedder as one text (USE-lite spent
 * minutes on it). Ordinary text, code and URLs run 1–6 characters per token and never reach it.
 */
export const MAX_CHARS_PER_TOKEN = 8;

export interface ChunkOptions {
  maxTokens?: number;
  /** Characters per chunk at most (default maxTokens × MAX_CHARS_PER_TOKEN). */
  maxChars?: number;
  overlapRatio?: number;
  unitTargetChars?: number;
  unitMaxChars?: number;
  /** Tokenizer requests in flight at once. */
  concurrency?: number;
  signal?: AbortSignal;
}

export interface Unit {
  /** Raw text including its trailing whitespace: a section's units concatenate back to the section. */
  text: string;
  tokens: number;
}

export interface PlannedChunk {
  content: string;
  /** Tokens by the model's tokenizer (sum over the chunk's units). */
  tokens: number;
  /** Index of the (first) section the chunk comes from. */
  section: number;
}

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** Cut `text` into pieces of at most `max` characters, preferring whitespace; pieces concatenate back to `text`. */
export function hardSplit(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = -1;
    for (let i = max; i > max / 2; i--) {
      if (/\s/.test(rest[i - 1]!) && !/\s/.test(rest[i] ?? "")) {
        cut = i;
        break;
      }
    }
    if (cut < 0) {
      cut = max;
      // never cut a surrogate pair in half
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
    }
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length) out.push(rest);
  return out;
}

/**
 * Split text into units: sentences (Unicode sentence boundaries; line breaks end a sentence), merged while
 * they fit in `target` characters without crossing a blank line, split when longer than `max`.
 * The units concatenate back to `text` exactly.
 */
export function splitUnits(text: string, target = UNIT_TARGET_CHARS, max = UNIT_MAX_CHARS): string[] {
  const units: string[] = [];
  let cur = "";
  for (const { segment } of segmenter.segment(text)) {
    if (segment.trim().length === 0) {
      cur += segment; // whitespace belongs to the unit before it, in pieces of at most `max`
      if (cur.length > max) {
        const parts = hardSplit(cur, max);
        units.push(...parts.slice(0, -1));
        cur = parts[parts.length - 1]!;
      }
      continue;
    }
    const pieces = segment.length > max ? hardSplit(segment, max) : [segment];
    for (const piece of pieces) {
      const paragraphEnd = /\n\s*\n\s*$/.test(cur);
      if (cur.length > 0 && (cur.length + piece.length > target || paragraphEnd)) {
        units.push(cur);
        cur = "";
      }
      cur += piece;
    }
  }
  if (cur.length) {
    if (cur.trim().length === 0 && units.length) units[units.length - 1] += cur;
    else units.push(cur);
  }
  return units;
}

/**
 * Counts tokens with the embedder's tokenizer: each distinct text once (cached, in-flight requests shared),
 * at most `concurrency` requests in flight across all callers.
 */
export class TokenCounter {
  private cache = new Map<string, Promise<number>>();
  private active = 0;
  private waiting: (() => void)[] = [];
  /** Tokenizer requests made (for tests and the benchmark). */
  calls = 0;
  /** Characters tokenized so far: the Ingest page's progress while a document is being counted. */
  charsCounted = 0;

  constructor(
    private readonly embedder: Embedder,
    private readonly concurrency = 8,
  ) {}

  private async acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over by release()
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  private one(key: string, signal?: AbortSignal): Promise<number> {
    let p = this.cache.get(key);
    if (!p) {
      p = (async () => {
        await this.acquire();
        try {
          signal?.throwIfAborted();
          this.calls++;
          const n = (await this.embedder.tokenize(key)).length;
          this.charsCounted += key.length;
          return n;
        } finally {
          this.release();
        }
      })();
      this.cache.set(key, p);
      p.catch(() => this.cache.delete(key));
    }
    return p;
  }

  async count(texts: string[], signal?: AbortSignal): Promise<number[]> {
    const out = await Promise.all(texts.map((t) => (t.trim().length === 0 ? 0 : this.one(t.trim(), signal))));
    signal?.throwIfAborted();
    return out;
  }

  private separators: Promise<SeparatorCosts> | null = null;

  /**
   * Tokens a separator adds where two units meet, measured with the model's tokenizer on junctions taken
   * from the document itself: tok(left␣right) − tok(left) − tok(right) for the last word before and the
   * first word after the junction. The cost depends on the tokenizer and on context (USE-lite spends up to
   * three tokens on a paragraph break before a capitalised word; WordPiece spends none), so the largest
   * cost seen per kind is used: chunks err on the short side of the limit. Measured once per counter.
   */
  separatorCosts(junctions: Junction[] = [], signal?: AbortSignal): Promise<SeparatorCosts> {
    this.separators ??= (async () => {
      const samples: Junction[] = [
        ...junctions,
        { kind: "space", left: "alpha", right: "beta" },
        { kind: "line", left: "alpha", right: "beta" },
        { kind: "paragraph", left: "alpha.", right: "Beta" },
      ];
      const sep = { space: " ", line: "\n", paragraph: "\n\n" };
      const texts = samples.flatMap((j) => [j.left, j.right, j.left + sep[j.kind] + j.right]);
      const counts = await this.count(texts, signal);
      const costs: SeparatorCosts = { space: 0, line: 0, paragraph: 0 };
      samples.forEach((j, i) => {
        costs[j.kind] = Math.max(costs[j.kind], counts[i * 3 + 2]! - counts[i * 3]! - counts[i * 3 + 1]!);
      });
      return costs;
    })();
    this.separators.catch(() => (this.separators = null));
    return this.separators;
  }

  /** Tokens of units that will be concatenated: each unit's own count plus what its trailing whitespace costs. */
  async countUnits(units: string[], signal?: AbortSignal): Promise<number[]> {
    const [counts, sep] = await Promise.all([
      this.count(units, signal),
      this.separatorCosts(junctionSamples(units), signal),
    ]);
    return units.map((u, i) => counts[i]! + (u.trim().length === 0 ? 0 : (sep[junctionKind(u)!] ?? 0)));
  }
}

export interface SeparatorCosts {
  space: number;
  line: number;
  paragraph: number;
}

export interface Junction {
  kind: keyof SeparatorCosts;
  left: string;
  right: string;
}

/** What a unit's trailing whitespace is, as a junction with the next unit (null: no whitespace). */
function junctionKind(unit: string): keyof SeparatorCosts | null {
  const tail = /\s*$/.exec(unit)![0];
  if (tail.length === 0) return null;
  return /\n[^\S\n]*\n/.test(tail) ? "paragraph" : tail.includes("\n") ? "line" : "space";
}

/** Up to four real junctions of each kind from consecutive units: the word before and the word after. */
export function junctionSamples(units: string[], perKind = 4): Junction[] {
  const out: Junction[] = [];
  const seen = { space: 0, line: 0, paragraph: 0 };
  for (let i = 0; i + 1 < units.length && out.length < perKind * 3; i++) {
    const kind = junctionKind(units[i]!);
    if (!kind || seen[kind] >= perKind) continue;
    const left = units[i]!.trim().split(/\s+/).pop() ?? "";
    const right = units[i + 1]!.trim().split(/\s+/)[0] ?? "";
    if (!left || !right || left.length > 40 || right.length > 40) continue;
    seen[kind]++;
    out.push({ kind, left, right });
  }
  return out;
}

/** Units of one section with their token counts; any unit over `maxTokens` is split in halves and recounted. */
async function countedUnits(
  text: string,
  counter: TokenCounter,
  maxTokens: number,
  o: Required<Omit<ChunkOptions, "signal">> & { signal?: AbortSignal },
): Promise<Unit[]> {
  let units: Unit[] = [];
  const raw = splitUnits(text, o.unitTargetChars, o.unitMaxChars);
  const counts = await counter.countUnits(raw, o.signal);
  units = raw.map((t, i) => ({ text: t, tokens: counts[i]! }));
  for (let guard = 0; guard < 20 && units.some((u) => u.tokens > maxTokens); guard++) {
    const next: Unit[] = [];
    const halves: string[] = [];
    for (const u of units) {
      if (u.tokens <= maxTokens) next.push(u);
      else {
        const parts = hardSplit(u.text, Math.max(1, Math.ceil(u.text.length / 2)));
        for (const p of parts) {
          next.push({ text: p, tokens: -1 });
          halves.push(p);
        }
      }
    }
    const c = await counter.countUnits(halves, o.signal);
    let k = 0;
    units = next.map((u) => (u.tokens === -1 ? { text: u.text, tokens: c[k++]! } : u));
  }
  return units;
}

export interface SectionUnits {
  heading: Unit | null;
  units: Unit[];
}

/** Pack counted units into chunks (pure; see the file comment for the rules). */
export function packUnits(
  sections: SectionUnits[],
  maxTokens = CHUNK_TOKENS,
  overlapRatio = OVERLAP_RATIO,
  maxChars = maxTokens * MAX_CHARS_PER_TOKEN,
): PlannedChunk[] {
  const target = Math.round(maxTokens * overlapRatio);
  const out: PlannedChunk[] = [];
  let cur: Unit[] = [];
  let curTokens = 0;
  let curChars = 0;
  let curSection = 0;
  const emit = (units: Unit[], tokens: number, section: number) => {
    const content = units
      .map((u) => u.text)
      .join("")
      .trim();
    if (content.length) out.push({ content, tokens, section });
  };
  const flush = () => {
    if (cur.length) emit(cur, curTokens, curSection);
    cur = [];
    curTokens = 0;
    curChars = 0;
  };
  sections.forEach((s, si) => {
    const units = s.units;
    const total = units.reduce((n, u) => n + u.tokens, 0);
    const chars = units.reduce((n, u) => n + u.text.length, 0);
    if (total === 0 && units.every((u) => u.text.trim().length === 0)) return;
    if (total <= maxTokens && chars <= maxChars) {
      if (curTokens + total > maxTokens || curChars + chars + 2 > maxChars) flush();
      if (cur.length === 0) curSection = si;
      else cur.push({ text: "\n\n", tokens: 0 });
      cur.push(...units);
      curTokens += total;
      curChars += chars + 2;
      return;
    }
    flush();
    let i = 0;
    let first = true;
    while (i < units.length) {
      const win: Unit[] = [];
      let tokens = 0;
      let winChars = 0;
      if (
        !first &&
        s.heading &&
        s.heading.tokens + units[i]!.tokens <= maxTokens &&
        !units[i]!.text.startsWith(s.heading.text.trim())
      ) {
        win.push({ text: `${s.heading.text.trim()}\n\n`, tokens: s.heading.tokens });
        tokens += s.heading.tokens;
        winChars += s.heading.text.length + 2;
      }
      let j = i;
      while (
        j < units.length &&
        tokens + units[j]!.tokens <= maxTokens &&
        winChars + units[j]!.text.length <= maxChars
      ) {
        winChars += units[j]!.text.length;
        tokens += units[j++]!.tokens;
      }
      if (j === i) {
        // a unit alone over a limit (cannot happen after countedUnits and splitUnits)
        winChars += units[j]!.text.length;
        tokens += units[j++]!.tokens;
      }
      win.push(...units.slice(i, j));
      if (j >= units.length) {
        // The section's last window stays open: a following short section may join it.
        cur = win;
        curTokens = tokens;
        curChars = winChars;
        curSection = si;
        break;
      }
      emit(win, tokens, si);
      // Next window starts at the run of trailing units whose size is closest to the overlap target.
      let next = j;
      let best = target;
      let ov = 0;
      for (let k = j - 1; k > i; k--) {
        ov += units[k]!.tokens;
        if (ov > maxTokens / 2) break;
        const d = Math.abs(ov - target);
        if (d < best) {
          best = d;
          next = k;
        }
      }
      i = next;
      first = false;
    }
  });
  flush();
  return out;
}

/** Sections → chunks, counting tokens with the embedding model's tokenizer. */
export async function chunkSections(
  sections: Section[],
  embedder: Embedder | TokenCounter,
  options: ChunkOptions = {},
): Promise<{ chunks: PlannedChunk[]; tokenizeCalls: number }> {
  const o = {
    maxTokens: options.maxTokens ?? CHUNK_TOKENS,
    maxChars: options.maxChars ?? (options.maxTokens ?? CHUNK_TOKENS) * MAX_CHARS_PER_TOKEN,
    overlapRatio: options.overlapRatio ?? OVERLAP_RATIO,
    unitTargetChars: options.unitTargetChars ?? UNIT_TARGET_CHARS,
    unitMaxChars: options.unitMaxChars ?? UNIT_MAX_CHARS,
    concurrency: options.concurrency ?? 8,
    signal: options.signal,
  };
  const counter = embedder instanceof TokenCounter ? embedder : new TokenCounter(embedder, o.concurrency);
  const before = counter.calls;
  // Separator costs from real junctions of this document (a few from each section, before any counting).
  await counter.separatorCosts(
    sections
      .flatMap((s) => junctionSamples(splitUnits(s.text.slice(0, 20_000), o.unitTargetChars, o.unitMaxChars), 2))
      .slice(0, 24),
    o.signal,
  );
  // Sections are counted concurrently too: the counter bounds the requests in flight.
  const counted = await Promise.all(
    sections.map(async (s): Promise<SectionUnits> => {
      const units = await countedUnits(s.text, counter, o.maxTokens, o);
      // A heading is tokenized in one call and repeated in continuation windows: only one no longer than a
      // unit is (a crafted 100K-character heading line is body text, cut into units like any other).
      const heading =
        s.heading && s.heading.length <= o.unitMaxChars
          ? { text: s.heading, tokens: (await counter.count([s.heading], o.signal))[0]! }
          : null;
      return { heading, units };
    }),
  );
  return { chunks: packUnits(counted, o.maxTokens, o.overlapRatio, o.maxChars), tokenizeCalls: counter.calls - before };
}
