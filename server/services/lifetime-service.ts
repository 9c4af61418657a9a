/**
 * The lifetime policy per kind as the pages show it (Settings → Background jobs sets it; Analytics and
 * the Manager show it), and what decay will remove within 7 days, with one-click keep.
 * docs/storage.md "What Memo keeps, and for how long" describes the same rules.
 */
import type Database from "better-sqlite3";
import { decayRulesOf, loadJobSettings, loadPersonLifetime, type JobSettings } from "../jobs/settings";
import { expiringSoon, keepMemories, type ExpiringMemory } from "../memory/lifecycle/lifetime";

export interface KindLifetime {
  kind: "chat" | "document" | "remember" | "import" | "consolidated";
  decays: boolean;
  consolidated: boolean;
  /** One line for people. */
  summary: string;
}

/** Every kind's lifetime under these settings. */
export function lifetimeByKind(s: JobSettings): KindLifetime[] {
  const d = s.decay;
  const decayLine = `decays after ${d.idleDays} days without recall (−1 importance a day), soft-deleted after ${d.zeroDays} days at 0, purged ${d.retentionDays} days later`;
  const keepLine = "never decays; stays until you delete it";
  const kinds = ["chat", "consolidated", "remember", "import"] as const;
  return [
    ...kinds.map((kind) => ({
      kind,
      decays: s.lifetime[kind] === "decay",
      consolidated: true,
      summary: s.lifetime[kind] === "decay" ? decayLine : keepLine,
    })),
    {
      kind: "document" as const,
      decays: false,
      consolidated: false,
      summary: "lives as long as its document; deleting the document removes the chunks no other document shares",
    },
  ];
}

export interface LifetimeOverview {
  kinds: KindLifetime[];
  retentionDays: number;
  expiring: { items: ExpiringMemory[]; softDeletes: number; purges: number };
}

export function lifetimeOverview(db: Database.Database, opts: { space?: string; now?: Date } = {}): LifetimeOverview {
  const s = loadJobSettings(db);
  return {
    kinds: lifetimeByKind(s),
    retentionDays: s.decay.retentionDays,
    expiring: expiringSoon(db, decayRulesOf(loadPersonLifetime(db)), { space: opts.space, now: opts.now }),
  };
}

export function keep(db: Database.Database, ids: string[]): { kept: string[] } {
  return { kept: keepMemories(db, ids) };
}
