/**
 * Proposals on What Memo knows (issues 48 and 54, server/memory/facts/proposals.ts): a fact learned from
 * untrusted text, or one that would bring back a replaced value, waits for the space's person. Accept
 * writes it (replacing those of them still current; its sources those still live), Dismiss drops it. Another
 * person's proposal, or one of a space merely shared with the caller, reads as missing.
 */
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { activeModel } from "../memory/index/model-check";
import { decideProposal, type FactProposal, getProposal, listProposals } from "../memory/facts/proposals";
import { insertFacts, markLearnedInRun, maxFactRid } from "../memory/facts/store";

const missing = (id: string) => new ServiceError(404, `proposal ${id} not found`);

export function factProposals(ctx: MemoContext, spaceId?: string): { proposals: FactProposal[] } {
  return { proposals: listProposals(ctx.db, { spaceId }) };
}

function pendingOr404(ctx: MemoContext, id: string): FactProposal {
  const p = getProposal(ctx.db, id);
  if (!p) throw missing(id);
  if (p.status !== "pending") throw new ServiceError(409, `proposal ${id} was already ${p.status}`);
  return p;
}

export async function acceptProposal(ctx: MemoContext, id: string): Promise<{ id: string; factId: string }> {
  const p = pendingOr404(ctx, id);
  const live = ctx.db.prepare("SELECT 1 FROM memories WHERE id = ? AND space_id = ? AND soft_deleted = 0");
  const current = ctx.db.prepare(
    "SELECT 1 FROM facts WHERE id = ? AND space_id = ? AND deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL",
  );
  const sources = p.sources.filter((m) => live.get(m, p.spaceId));
  if (!sources.length)
    throw new ServiceError(409, `proposal ${id} cannot be accepted: every memory it came from is gone`);
  const [vector] = await ctx.embedder.embedDocuments([p.text]);
  if (!vector) throw new ServiceError(502, "the embedding server returned no vector; nothing was written");
  const { model } = await activeModel(ctx);
  return ctx.db.transaction(() => {
    // Checked again inside the write: a second click, or a change meanwhile, writes nothing twice.
    if (!getProposal(ctx.db, id) || getProposal(ctx.db, id)!.status !== "pending") throw missing(id);
    const replaces = p.replaces.map((r) => r.id).filter((f) => current.get(f, p.spaceId));
    const before = maxFactRid(ctx.db);
    const [factId] = insertFacts(
      ctx.db,
      p.spaceId,
      [{ text: p.text, sources, validFrom: p.validFrom, replaces, origin: "learned" }],
      [vector],
      model,
    );
    // Marked as the run's (undoing the run takes it back), unless the text was already a fact of the person's.
    if (p.runId) markLearnedInRun(ctx.db, p.runId, [factId!], before);
    decideProposal(ctx.db, id, "accepted", factId!);
    return { id, factId: factId! };
  })();
}

export function dismissProposal(ctx: MemoContext, id: string): { id: string; dismissed: true } {
  pendingOr404(ctx, id);
  if (!decideProposal(ctx.db, id, "dismissed")) throw missing(id);
  return { id, dismissed: true };
}

/**
 * Confirm or dismiss several proposals at once (a learning run's review: "Confirm all", "Dismiss all"). All
 * must be the caller's pending proposals (else 404/409, nothing decided); then each is decided on its own:
 * one that cannot be confirmed (its memories went meanwhile) is reported with its reason and the others
 * still go through. At most 500 per call.
 */
export async function decideProposals(
  ctx: MemoContext,
  ids: string[],
  decision: "accept" | "dismiss",
): Promise<{ done: string[]; failed: { id: string; reason: string }[] }> {
  if (ids.length > 500) throw new ServiceError(400, "at most 500 proposals at once");
  // Each must be the caller's and pending: another person's reads as missing, and nothing is decided.
  for (const id of new Set(ids)) pendingOr404(ctx, id);
  const done: string[] = [];
  const failed: { id: string; reason: string }[] = [];
  for (const id of new Set(ids)) {
    try {
      if (decision === "accept") await acceptProposal(ctx, id);
      else dismissProposal(ctx, id);
      done.push(id);
    } catch (e) {
      if (!(e instanceof ServiceError) || e.status >= 500) throw e;
      failed.push({ id, reason: e.message });
    }
  }
  return { done, failed };
}
