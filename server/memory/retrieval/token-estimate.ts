/** A cheap token estimate (≈4 characters per token for English); the budget is a guard, not a tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
