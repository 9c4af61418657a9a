/**
 * Checks on a merged statement before consolidation writes it (issue "Memory you can trust"): a provider
 * that answered the merge prompt badly must not replace two good memories with junk. A merge is refused
 * when it is empty, longer than both originals together plus 20%, contains refusal or meta text that
 * neither original contains ("I can't", "As an AI", "Here is the merged…"), or its embedding is less
 * than (threshold − 0.1) similar to either original.
 */

import { cosine } from "../facts/search";

export const MAX_LENGTH_RATIO = 1.2;
export const SIMILARITY_SLACK = 0.1;

const META_PATTERNS: RegExp[] = [
  /\bI\s+(?:can(?:no|['’])t|cannot|am unable to|['’]m unable to|won['’]t be able to)\b/i,
  /\bas an? (?:AI|artificial intelligence|(?:large )?language model|assistant)\b/i,
  /\bhere(?:\s+is|['’]s)\s+(?:the|a|your|one)\s+(?:merged|combined|single|consolidated|unified)\b/i,
  /\b(?:merged|combined|consolidated)\s+(?:statement|memory|memories|note|notes|version)\b/i,
  /\bI(?:['’]m| am) sorry\b|\bI apologi[sz]e\b/i,
  /^(?:sure|certainly|of course|okay|ok)\b[,!.:]/i,
  /<\/?memory_[12]>/i,
];

/** Why the merged text is unacceptable, from the text alone (null: fine so far). */
export function textProblem(merged: string, a: string, b: string): string | null {
  const t = merged.trim();
  if (!t) return "the merged statement is empty";
  const limit = Math.floor(MAX_LENGTH_RATIO * (a.length + b.length));
  if (t.length > limit)
    return `the merged statement is ${t.length} characters, more than both originals together plus 20% (${limit})`;
  const originals = `${a}\n${b}`.toLowerCase();
  for (const re of META_PATTERNS) {
    const m = t.match(re);
    if (m && !originals.includes(m[0].toLowerCase()))
      return `the merged statement contains refusal or meta text (“${m[0]}”)`;
  }
  return null;
}

/** Why the merged statement's vector is too far from an original (null: close enough to both). */
export function similarityProblem(
  merged: Float32Array,
  va: Float32Array,
  vb: Float32Array,
  threshold: number,
): string | null {
  const floor = threshold - SIMILARITY_SLACK;
  const sa = cosine(merged, va);
  const sb = cosine(merged, vb);
  if (sa < floor || sb < floor) {
    return `the merged statement is too far from the originals (similarity ${sa.toFixed(3)} and ${sb.toFixed(3)}; at least ${floor.toFixed(2)} needed)`;
  }
  return null;
}
