import type Database from "better-sqlite3";
import { keywordSearch } from "./keyword-search";
import { getMemoriesByRid } from "./store";
import { eventWindow, type TimeIntent, type TimeWindow } from "./time-window";

/**
 * Date the spans a query names relative to an event ("the day after the concert", "the week before I
 * moved"; docs/retrieval.md#time-aware-retrieval). The event is the space's best keyword match for its
 * words that was told by the turn's date; the span around that memory's date becomes one more date
 * window. An event nothing in the space tells of gives no window.
 */
export function withEventWindows(db: Database.Database, spaceId: string, intent: TimeIntent, now: number): TimeIntent {
  if (intent.events.length === 0) return intent;
  const windows: TimeWindow[] = [...intent.windows];
  for (const e of intent.events) {
    const hits = keywordSearch(db, spaceId, e.event, 5);
    const rows = getMemoriesByRid(
      db,
      hits.map((h) => h.rid),
    );
    const anchor = hits.map((h) => rows.get(h.rid)).find((m) => m && !m.softDeleted && Date.parse(m.timestamp) <= now);
    if (!anchor) continue;
    windows.push({
      ...eventWindow(e, anchor.timestamp, now),
      text: e.lead,
      event: { text: e.event, memoryId: anchor.id, at: anchor.timestamp },
    });
  }
  return { ...intent, windows };
}
