import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { duplicateKey } from "@/server/memory/facts/duplicate-key";

/** A fact as the facts router answers it (server/services/facts-service.ts FactView). */
export type Fact = inferRouterOutputs<AppRouter>["facts"]["list"]["facts"][number];
export type FactSource = inferRouterOutputs<AppRouter>["facts"]["sources"]["sources"][number];

/** Where a fact is shown: the person's own space, or one shared with them (whose, and whether they may change it). */
export interface SpaceGroup {
  /** The space as requests name it: an own space by its name, a shared one as '<owner id>~<name>'. */
  space: string;
  name: string;
  /** The space's person, for a space shared with the reader; null for their own. */
  ownerName: string | null;
  writable: boolean;
  facts: Fact[];
}

/** Who a fact came from, in a word: learned from memory, written by a person, or imported. */
export function originLabel(f: Fact, own: boolean): string {
  if (f.origin === "learned") return "learned";
  if (f.origin === "import") return "imported";
  // A person wrote it (an edit): the reader, unless it was someone they share the space with, or its owner.
  if (f.whose?.writer) return `written by ${f.whose.writer}`;
  return own ? "written by you" : `written by ${f.whose?.owner ?? "its owner"}`;
}

/** A replaced version that was merged into an older fact as a duplicate (consolidation), not a value that changed. */
export function mergedDuplicate(f: Fact, versions: Fact[]): boolean {
  const by = versions.find((v) => v.id === f.supersededBy);
  // An edit that corrects a value also ends the old one where it began: only the same statement is a merge.
  return f.validTo === f.validFrom && by !== undefined && duplicateKey(by.text) === duplicateKey(f.text);
}
