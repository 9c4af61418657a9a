/** A memory's time for recency: the later of its timestamp and its last edit (an edit is new information). */
export function recencyOf(m: { timestamp: string; updatedAt?: string | null }): string {
  return m.updatedAt && m.updatedAt > m.timestamp ? m.updatedAt : m.timestamp;
}
