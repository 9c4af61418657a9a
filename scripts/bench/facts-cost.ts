/**
 * `npm run bench`'s `factsCost` (issue 47): what the facts leg and the profile cost a chat turn. The bench's
 * store gets `count` current facts, each learned from one of its memories (a few of that memory's words, a
 * vector near its own, as a learned fact restates what was said); the same turns are then timed three times
 * through recallForPrompt on the same store (in rounds, the order reversed each round): facts leg and profile off (factMinConfidence 1, profileTokens 0),
 * the leg alone, and both (the shipped settings). Facts stay keys of their memories in all three (factVector,
 * factFts as shipped), so the difference is the leg's and the profile's. The facts are purged afterwards:
 * the cached store is left as it was.
 */
import type Database from "better-sqlite3";
import { purgeFactRows } from "../../server/memory/facts/forgetting";
import { insertFacts } from "../../server/memory/facts/store";
import { MAX_FACTS_PER_CALL } from "../../server/memory/facts/rows";
import { defaultSettingsFor } from "../../server/memory/retrieval/settings";
import { gauss } from "./synthetic";
import { noSamples, sampleTurns, summarise, type BenchTurn } from "./turn";

/** Seed `count` current facts in `space`, each from a memory drawn with `r`. Returns their ids. */
export function seedFacts(
  db: Database.Database,
  space: string,
  model: string,
  dim: number,
  count: number,
  r: () => number,
): string[] {
  const rids = (
    db.prepare("SELECT rid FROM memories WHERE space_id = ? AND soft_deleted = 0 ORDER BY rid").all(space) as {
      rid: number;
    }[]
  ).map((m) => m.rid);
  const memory = db.prepare(
    "SELECT m.id, m.content, v.embedding FROM memories m JOIN memory_vec_rows v ON v.rid = m.rid WHERE m.rid = ?",
  );
  const items: { text: string; sources: string[]; origin: "learned" }[] = [];
  const vectors: Float32Array[] = [];
  for (let i = 0; i < count && rids.length; i++) {
    const m = memory.get(rids[Math.floor(r() * rids.length)]!) as { id: string; content: string; embedding: Buffer };
    const words = m.content.split(/\s+/);
    const start = Math.floor(r() * Math.max(1, words.length - 10));
    items.push({
      text: `The user ${words.slice(start, start + 6 + Math.floor(r() * 5)).join(" ")}`,
      sources: [m.id],
      origin: "learned",
    });
    // Near its memory's vector (cosine ≈ 0.9), as a fact restating it is.
    const v = new Float32Array(m.embedding.buffer, m.embedding.byteOffset, dim).map((x) => x + gauss(r) * 0.02);
    const norm = Math.hypot(...v);
    vectors.push(v.map((x) => x / norm));
  }
  const ids: string[] = [];
  for (let i = 0; i < items.length; i += MAX_FACTS_PER_CALL)
    ids.push(
      ...insertFacts(
        db,
        space,
        items.slice(i, i + MAX_FACTS_PER_CALL),
        vectors.slice(i, i + MAX_FACTS_PER_CALL),
        model,
      ),
    );
  return [...new Set(ids)];
}

/**
 * The turn with the facts leg and the profile off, the leg alone, and both on, over the same turns and store
 * (with `count` facts seeded), offline profile; `ratios.onOverOff` is the turn's p50 with both over without,
 * `profileTokensPerTurn` what the profile adds to "[What I know]" (both on, less the leg alone).
 */
export async function factsCost(
  db: Database.Database,
  model: string,
  dim: number,
  space: string,
  profile: string,
  turns: BenchTurn[],
  count: number,
  r: () => number,
) {
  const ids = seedFacts(db, space, model, dim, count, r);
  const shipped = defaultSettingsFor(profile);
  const configs = {
    off: { factMinConfidence: 1, profileTokens: 0 },
    legOnly: { profileTokens: 0 },
    on: {},
  } as const;
  type Config = keyof typeof configs;
  const samples = { off: noSamples(), legOnly: noSamples(), on: noSamples() };
  try {
    // In rounds, the order reversed each round (off, leg, on, then on, leg, off…): a machine whose load drifts
    // during the run weighs on the three alike, so the ratios hold better than one long run each would.
    const rounds = Math.max(1, Math.min(4, Math.floor(turns.length / 15)));
    const size = Math.ceil(turns.length / rounds);
    for (let i = 0; i < rounds; i++) {
      const order: Config[] = i % 2 ? ["on", "legOnly", "off"] : ["off", "legOnly", "on"];
      for (const c of order)
        await sampleTurns(
          db,
          model,
          dim,
          space,
          profile,
          turns.slice(i * size, (i + 1) * size),
          undefined,
          configs[c],
          samples[c],
        );
    }
    const [off, leg, on] = [summarise(samples.off), summarise(samples.legOnly), summarise(samples.on)];
    const ratio = (a: number, b: number) => +(a / b).toFixed(3);
    return {
      facts: ids.length,
      settings: { factMinConfidence: shipped.factMinConfidence, profileTokens: shipped.profileTokens },
      rounds,
      off,
      legOnly: leg,
      on,
      ratios: { onOverOff: ratio(on.p50, off.p50), legOverOff: ratio(leg.p50, off.p50) },
      profileTokensPerTurn: +(on.factTokensPerTurn - leg.factTokensPerTurn).toFixed(1),
      factTokensAddedPerTurn: +(on.factTokensPerTurn - off.factTokensPerTurn).toFixed(1),
    };
  } finally {
    db.transaction(() => purgeFactRows(db, ids))();
  }
}
