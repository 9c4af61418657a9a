import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

/**
 * Playwright e2e: the real app (`node scripts/start.mjs`, which builds when stale) on a fixed port with a
 * fresh data folder per run, driven by Debian's chromium. Never downloads browsers.
 *
 * Playwright loads this file in the runner and again in every worker; the data folder is chosen once
 * (in the runner) and handed to workers through the environment so they all agree on it.
 */
// Port and build folder per run (unless set): several e2e runs may share this checkout at once.
process.env.MEMO_E2E_PORT ??= String(process.env.CI ? 3210 : 3300 + (process.pid % 600));
// A separate build folder only when asked (MEMO_E2E_DIST_DIR): Next adds every build folder it sees to
// tsconfig.json's include list, so per-run folders would keep editing a tracked file.
process.env.MEMO_E2E_DIST_DIR ??= ".next";
const port = Number(process.env.MEMO_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;
process.env.MEMO_E2E_DATA_DIR ??= path.join(os.tmpdir(), `memo-e2e-data-${Date.now()}-${process.pid}`);
const dataDir = process.env.MEMO_E2E_DATA_DIR;
// The chat specs' OpenAI-compatible TEST DOUBLE (e2e/support/openai-fixture.ts): the app's chat provider.
process.env.MEMO_E2E_FIXTURE_PORT ??= String(port + 1000);
const fixtureURL = `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;
// A second instance of the same TEST DOUBLE that the app counts as a remote provider (MEMO_TREAT_AS_REMOTE,
// test only), for the privacy spec: memory sharing rules without sending anything off this machine.
process.env.MEMO_E2E_REMOTE_FIXTURE_PORT ??= String(port + 2000);
const remoteFixtureHost = `127.0.0.1:${process.env.MEMO_E2E_REMOTE_FIXTURE_PORT}`;
// The app's injected clock for temporary-chat expiry (MEMO_TEST_CLOCK_FILE, test only): milliseconds to add.
process.env.MEMO_E2E_CLOCK_FILE ??= `${dataDir}-clock`;

/** Spec files that run in the "own-memo" project (below). */
const OWN_MEMO = ["**/load.spec.ts", "**/auth.spec.ts", "**/household.spec.ts"];

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  fullyParallel: false,
  // Two at once: one for the app's specs, one for the specs with a Memo of their own (the projects below).
  workers: 2,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // `list` as before; the timing reporter adds the 15 slowest specs at the end (the test-time report, .ci/run).
  reporter: [["list"], ["./e2e/support/timing-reporter.ts"]],
  globalTeardown: "./e2e/global-teardown.ts",
  use: {
    baseURL,
    screenshot: "on",
    trace: { mode: "retain-on-failure", screenshots: false },
    launchOptions: {
      executablePath: process.env.MEMO_E2E_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    },
  },
  projects: [
    // The specs of the e2e app (the webServer below) share its settings and its test doubles' scripts: one at
    // a time, in file order.
    { name: "app", testIgnore: OWN_MEMO, workers: 1, use: { ...devices["Desktop Chrome"] } },
    // Specs that start and drive a Memo of their own (own data folder and port) and change nothing the app's
    // specs read: one at a time too, beside the app's. What they share with them is the chat TEST DOUBLE, whose
    // counts a test reads for its own messages only (`?containing=`).
    { name: "own-memo", testMatch: OWN_MEMO, workers: 1, use: { ...devices["Desktop Chrome"] } },
  ],
  webServer: [
    {
      command: `node --import tsx e2e/support/openai-fixture.ts --port ${process.env.MEMO_E2E_FIXTURE_PORT} --api-key sk-e2e-fixture`,
      url: `${fixtureURL}/__fixture/health`,
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: `node --import tsx e2e/support/openai-fixture.ts --port ${process.env.MEMO_E2E_REMOTE_FIXTURE_PORT} --api-key sk-e2e-fixture`,
      url: `http://${remoteFixtureHost}/__fixture/health`,
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: "node scripts/start.mjs",
      url: `${baseURL}/api/health`, // 503 until the embedding server is ready; Playwright waits for 2xx
      timeout: 600_000, // the first run builds the app (~15 s idle, over 3 min on a busy 2-core machine)
      reuseExistingServer: false, // always a fresh server on a fresh data folder: deterministic runs
      stdout: "pipe",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
      env: {
        PORT: String(port),
        MEMO_HOST: "127.0.0.1",
        MEMO_DATA_DIR: dataDir,
        MEMO_NEXT_DIST_DIR: process.env.MEMO_E2E_DIST_DIR,
        MEMO_OFFLINE: "1", // no background model download: tests use the bundled model
        MEMO_DETECT_LOCAL: "0", // never probe the machine's 11434/1234/8080: the fixture is the provider
        NEXT_TELEMETRY_DISABLED: "1",
        // Chat answers come from the fixture (deterministic, echoes the memory block it receives).
        MEMO_PROVIDER: "openai",
        MEMO_OPENAI_BASE_URL: `${fixtureURL}/v1`,
        MEMO_OPENAI_MODEL: "fixture-echo",
        MEMO_OPENAI_API_KEY: "sk-e2e-fixture",
        MEMO_PROVIDER_TIMEOUT_SEC: "20",
        MEMO_TREAT_AS_REMOTE: remoteFixtureHost,
        MEMO_TEST_CLOCK_FILE: process.env.MEMO_E2E_CLOCK_FILE,
      },
    },
  ],
});
