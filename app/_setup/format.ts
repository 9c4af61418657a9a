/** Small formatters shared by the banner, the checklist and Settings → Models. */
export const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

export function eta(secs: number | null): string {
  if (secs === null || !Number.isFinite(secs)) return "";
  const s = Math.max(0, Math.round(secs));
  const m = Math.floor(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min left` : m > 0 ? `${m} min ${s % 60} s left` : `${s} s left`;
}

export function pct(done: number, total: number | null): number {
  return total ? Math.min(100, Math.round((done / total) * 100)) : 0;
}
