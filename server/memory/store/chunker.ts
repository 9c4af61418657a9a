/**
 * Split text into word windows: `size` words per chunk, consecutive chunks sharing `overlap` words.
 * Chat exchanges use 300/50 (docs/architecture.md#a-chat-turn). Whitespace inside a chunk is normalised to single spaces.
 */
export function chunkWords(text: string, size = 300, overlap = 50): string[] {
  if (!Number.isInteger(size) || size <= 0) throw new RangeError("chunk size must be a positive integer");
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError("overlap must be a non-negative integer smaller than the chunk size");
  }
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  if (words.length <= size) return [words.join(" ")];
  const step = size - overlap;
  const chunks: string[] = [];
  for (let start = 0; start < words.length; start += step) {
    const end = Math.min(start + size, words.length);
    chunks.push(words.slice(start, end).join(" "));
    if (end === words.length) break;
  }
  return chunks;
}

/** The text stored for one chat exchange (user message + assistant reply, concatenated). */
export function exchangeText(user: string, assistant: string): string {
  return saidText(chatParts(user, assistant));
}

/**
 * Who said which part of a memory, stored with it (memories.speakers, drizzle/0016_speakers.sql) so that
 * nothing has to read it back out of "Name: text". A chat exchange is one memory holding both the user's
 * message and the reply, and an imported exchange holds two named people, so one speaker per memory is
 * not enough: each span is one speaker's own words as character offsets [start, end) into the memory's
 * content (the label written before them, "User:" or the name, is outside the span). `role` is the chat
 * role when there is one; `name` an imported speaker's name.
 */
export interface SpeakerSpan {
  role?: "user" | "assistant";
  name?: string;
  start: number;
  end: number;
}

/** One speaker's words of an exchange, before it is stored. */
export interface Said {
  role?: "user" | "assistant";
  name?: string;
  text: string;
}

/** The label written before a part: the speaker's name, or the chat role as chat has always stored it. */
const labelOf = (p: Said) => p.name ?? (p.role === "assistant" ? "Assistant" : "User");

/** The stored text of an exchange: each part as "<label>: <text>" on its own line (exchangeText's form). */
export function saidText(parts: Said[]): string {
  return parts
    .filter((p) => p.text.trim())
    .map((p) => `${labelOf(p)}: ${p.text.trim()}`)
    .join("\n");
}

/** The parts of a chat exchange (the prompt alone when there is no reply). */
export function chatParts(user: string, assistant: string): Said[] {
  return [
    { role: "user", text: user },
    { role: "assistant", text: assistant },
  ];
}

/**
 * An exchange chunked as chunkWords(saidText(parts)) chunks it, with each chunk's speaker spans. The
 * spans come from the parts given here, word by word, never from the text.
 */
export function chunkSaid(parts: Said[], size = 300, overlap = 50): { content: string; speakers: SpeakerSpan[] }[] {
  const words: { w: string; part: number }[] = [];
  parts.forEach((p, i) => {
    if (!p.text.trim()) return;
    for (const w of `${labelOf(p)}:`.split(/\s+/).filter(Boolean)) words.push({ w, part: -1 });
    for (const w of p.text.split(/\s+/).filter(Boolean)) words.push({ w, part: i });
  });
  const chunks = chunkWords(words.map((x) => x.w).join(" "), size, overlap);
  const step = size - overlap;
  return chunks.map((content, c) => {
    const speakers: SpeakerSpan[] = [];
    let at = 0;
    let current = -1;
    for (const { w, part } of words.slice(c * step, c * step + size)) {
      if (part >= 0 && part === current) speakers[speakers.length - 1]!.end = at + w.length;
      else if (part >= 0) {
        const { role, name } = parts[part]!;
        speakers.push({ ...(role ? { role } : {}), ...(name ? { name } : {}), start: at, end: at + w.length });
      }
      current = part;
      at += w.length + 1;
    }
    return { content, speakers };
  });
}
