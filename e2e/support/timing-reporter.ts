import fs from "node:fs";
import path from "node:path";
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from "@playwright/test/reporter";
import { type FileTiming, formatSlowest, saveTimings, seconds } from "../../scripts/test-report/format";

/**
 * A Playwright reporter used beside `list` (playwright.config.ts): at the end, the 15 slowest specs (each
 * spec's tests' durations summed, hooks and fixtures included) and the run's wall time; every spec's time is
 * saved in .cache/test-timing/e2e.json for .ci/run's summary (whole runs only, not `playwright test one.spec.ts`).
 */
export default class TimingReporter implements Reporter {
  private readonly specs = new Map<string, FileTiming>();
  private readonly started = performance.now(); // made before the web servers start: their start is counted
  private whole = true;

  onBegin(config: FullConfig, suite: Suite): void {
    const testDir = config.projects[0]?.testDir ?? "e2e";
    const planned = new Set(suite.allTests().map((t) => t.location.file));
    this.whole = planned.size === fs.globSync(path.join(testDir, "**", "*.spec.ts")).length;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = path.relative(process.cwd(), test.location.file);
    let e = this.specs.get(file);
    if (!e) {
      e = { file, ms: 0, tests: 0, failed: 0 };
      this.specs.set(file, e);
    }
    e.ms += result.duration;
    if (result.retry === 0) e.tests++;
    if (result.status !== test.expectedStatus && result.status !== "skipped") e.failed++;
  }

  onEnd(result: FullResult): void {
    const rows = [...this.specs.values()];
    if (this.whole) saveTimings("e2e", rows);
    console.log(
      `\n[test:e2e] ${result.status} in ${seconds(performance.now() - this.started)} wall (app start included)`,
    );
    console.log(formatSlowest("e2e specs", rows));
  }

  printsToStdio(): boolean {
    return false; // `list` prints the run; this adds its table at the end
  }
}
