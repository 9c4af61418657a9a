/**
 * When a fact became true, when its writer does not say: a past date the fact's own text gives ("since
 * March 2021", "last week"), read by chrono-node against the time of its earliest source memory (what "last
 * week" was said relative to), else that source's time. A date after the source is a plan, not when the
 * fact began, and is not used. The same date reading as retrieval's (server/memory/retrieval/time-window.ts).
 */
import { keptIso } from "../../core/dates";
import { parseTimeIntent } from "../retrieval/time-window";

export function deriveValidFrom(text: string, sourceTimes: string[], offsetMinutes = 0): string {
  const earliest = [...sourceTimes].sort()[0];
  const ref = earliest ? new Date(earliest) : new Date();
  const [first] = parseTimeIntent(text, ref, offsetMinutes).windows;
  // A date outside the ones Memo keeps (server/core/dates.ts) would be refused when written: the source's time.
  return first && keptIso(first.start) !== null ? first.start : ref.toISOString();
}
