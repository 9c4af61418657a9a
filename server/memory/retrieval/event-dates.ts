import type Database from "better-sqlite3";
import { rrfScore } from "./fuse";
import { keywordSearchScored, textStems } from "./keyword-search";
import { getMemoriesByRid } from "../store";
import { eventWindow, type TimeIntent, type TimeWindow } from "./time-window";

/** Candidates for the event's memory taken from each leg. */
const EVENT_CANDIDATES = 10;

/**
 * The memories that may tell of the event, best first: reciprocal-rank fusion (k = 60) of the keyword
 * leg over the event's words and the dense leg over the whole question. Keywords alone pick the wrong
 * memory when the event is paraphrased ("my first week at the new job" vs "First week at Northwind
 * done" loses to "Ravi … for a new job"). But a memory that holds every one of the event's (two or
 * more) kept words tells of it whatever the dense leg says, and comes first: ranks alone let a
 * memory both legs half-like ("Cleaned out the garage…") beat the only one that says "signed up for a
 * wheel-throwing course", since the dense leg reads the whole question, not the event.
 */
export function eventCandidates(keyword: { rid: number; complete?: boolean }[], vector: { rid: number }[]): number[] {
  const ranks = new Map<number, { rank: number; weight: number }[]>();
  for (const list of [keyword, vector])
    list.forEach((h, i) => ranks.set(h.rid, [...(ranks.get(h.rid) ?? []), { rank: i + 1, weight: 1 }]));
  const complete = new Set(keyword.filter((h) => h.complete).map((h) => h.rid));
  return [...ranks]
    .map(([rid, r]) => ({ rid, complete: complete.has(rid), score: rrfScore(r) }))
    .sort((a, b) => Number(b.complete) - Number(a.complete) || b.score - a.score)
    .map((c) => c.rid);
}

/** The keyword leg over the event's words, each hit marked when it holds every kept word (two or more). */
function eventKeywordHits(db: Database.Database, spaceId: string, event: string): { rid: number; complete: boolean }[] {
  const { hits, terms } = keywordSearchScored(db, spaceId, event, EVENT_CANDIDATES);
  if (terms.length < 2) return hits.map((h) => ({ rid: h.rid, complete: false }));
  const rows = getMemoriesByRid(
    db,
    hits.map((h) => h.rid),
  );
  return hits.map((h) => {
    const stems = textStems(rows.get(h.rid)?.content ?? "");
    return { rid: h.rid, complete: terms.every((t) => stems.has(t.stem)) };
  });
}

/**
 * Date the spans a query names relative to an event ("the day after the concert", "the week before I
 * moved"; docs/retrieval.md#time-aware-retrieval). The event is the best of `eventCandidates` (keyword
 * leg over its words, dense leg over the question: `vectorHits`) told by the turn's date; the span around
 * that memory's date, in the person's time zone, becomes one more date window. An event nothing in the
 * space tells of gives no window.
 */
export function withEventWindows(
  db: Database.Database,
  spaceId: string,
  intent: TimeIntent,
  now: number,
  vectorHits: { rid: number }[] = [],
  offsetMinutes = 0,
): TimeIntent {
  if (intent.events.length === 0) return intent;
  const windows: TimeWindow[] = [...intent.windows];
  for (const e of intent.events) {
    const ranked = eventCandidates(eventKeywordHits(db, spaceId, e.event), vectorHits.slice(0, EVENT_CANDIDATES));
    const rows = getMemoriesByRid(db, ranked);
    const anchor = ranked
      .map((rid) => rows.get(rid))
      .find((m) => m && !m.softDeleted && Date.parse(m.timestamp) <= now);
    if (!anchor) continue;
    windows.push({
      ...eventWindow(e, anchor.timestamp, now, offsetMinutes),
      text: e.lead,
      event: { text: e.event, memoryId: anchor.id, at: anchor.timestamp },
    });
  }
  return { ...intent, windows };
}
