/**
 * What narrowing a scan to the acting person costs (issue 32): a count over N live memories with no filter,
 * with mine(space_id) per row (a call into JavaScript for every row), and with mineScan (an uncorrelated
 * subquery over acting_person(), evaluated once per statement), as a member and outside any request.
 *   node --import tsx scripts/bench-person-filter.ts [N=500000]
 */
import { mineScan, runAs } from "../server/core/acting";
import { insertBareMemories } from "../server/test/bare-memories";
import { openTempStore } from "../server/test/temp-store";

const N = Number(process.argv[2] ?? 500_000);
const s = openTempStore();
const db = s.sqlite;
insertBareMemories(db, N);
const base = "SELECT count(*) AS n FROM memories m WHERE m.soft_deleted = 0";
const queries: [string, string][] = [
  ["no filter", base],
  ["mine() per row", `${base} AND mine(m.space_id)`],
  ["mineScan", `${base} AND ${mineScan("m.space_id")}`],
];
const time = (sql: string) => {
  const st = db.prepare(sql);
  st.get();
  const t = performance.now();
  for (let k = 0; k < 5; k++) st.get();
  return (performance.now() - t) / 5;
};
for (const [who, run] of [
  ["outside a request", <T>(f: () => T) => f()],
  ["as a member", <T>(f: () => T) => runAs({ personId: "pmember", admin: false }, f)],
] as const) {
  for (const [name, sql] of queries)
    console.log(`${who.padEnd(18)} ${name.padEnd(15)} ${run(() => time(sql)).toFixed(1)} ms`);
}
s.close();
