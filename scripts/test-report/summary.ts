/**
 * The end of .ci/run (and of a failed one): each phase's wall time, then the 15 slowest unit test files and
 * e2e specs that the runs saved in .cache/test-timing/.
 *
 *   node --import tsx scripts/test-report/summary.ts install=41 lint=30 unit=250 build=120 e2e=300
 */
import { formatSlowest, loadTimings } from "./format";

const phases = process.argv.slice(2).map((a) => {
  const [name, secs] = a.split("=");
  return { name: name ?? a, secs: Number(secs) };
});
const total = phases.reduce((s, p) => s + p.secs, 0);
console.log("\n[ci] time per phase:");
for (const p of phases) console.log(`  ${p.name.padEnd(8)} ${String(p.secs).padStart(5)} s`);
console.log(`  ${"total".padEnd(8)} ${String(total).padStart(5)} s`);
for (const [name, what] of [
  ["unit", "unit test files"],
  ["e2e", "e2e specs"],
] as const) {
  const rows = loadTimings(name);
  if (rows) console.log(`\n${formatSlowest(what, rows)}`);
}
