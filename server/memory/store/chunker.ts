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
  return `User: ${user.trim()}\nAssistant: ${assistant.trim()}`;
}
