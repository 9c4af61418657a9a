/**
 * Undo a learning run as a whole (issue 48: "revert what this document changed"): the run is stopped, every
 * fact it wrote that is still current is forgotten (restorable like any fact a person deletes), the facts
 * those replaced (through a proposal the person accepted) are current again, and its waiting proposals are
 * dismissed — in one transaction. A fact of the run that was replaced since (the person edited it, a later
 * exchange changed it) is left to what replaced it: the person's later word stands.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { nowIso } from "../store/rows";
import { forgetWithHistory } from "./forgetting";
import { dismissRunProposals } from "./proposals";
import { getRun, stopRun } from "./runs";
import { reopenReplacedBy } from "./write";

export interface RevertedRun {
  /** Facts of the run forgotten, facts current again, proposals dismissed. */
  forgotten: number;
  restored: number;
  dismissed: number;
}

/** Undo the acting person's run `id`; undefined when it is not theirs (or does not exist). */
export function revertRun(db: Database.Database, id: string, at: string = nowIso()): RevertedRun | undefined {
  return db.transaction(() => {
    if (!getRun(db, id) || !stopRun(db, id)) return undefined;
    const facts = (
      stmt(
        db,
        `SELECT id FROM facts WHERE learn_run_id = ? AND deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL`,
      ).all(id) as { id: string }[]
    ).map((r) => r.id);
    let restored = 0;
    // What each replaced is current again first, so forgetting the run's fact does not take it along.
    for (const f of facts) restored += reopenReplacedBy(db, f);
    const forgotten = forgetWithHistory(db, facts, "person", at).length;
    return { forgotten, restored, dismissed: dismissRunProposals(db, id) };
  })();
}
