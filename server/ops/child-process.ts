/** Process plumbing for supervised children (server/ops/child-server.ts and its users). */
import type { ChildProcess } from "node:child_process";
import net from "node:net";

/** A free loopback port (for a child that must be told its port, like a native llama-server). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * SIGKILL the child `pid()` names when this process exits (a native server does not watch its stdin).
 * Registered once per `key`: globalThis outlives module reloads in development.
 */
export function killOnExit(key: string, pid: () => number | null | undefined): void {
  const g = globalThis as unknown as Record<string, boolean | undefined>;
  if (g[key]) return;
  g[key] = true;
  process.once("exit", () => {
    const p = pid();
    if (!p) return;
    try {
      process.kill(p, "SIGKILL");
    } catch {
      /* gone */
    }
  });
}

/** SIGTERM a child and wait for it to exit; SIGKILL it if it is still there after `graceMs`. */
export function terminate(c: ChildProcess, graceMs = 2000): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      try {
        c.kill("SIGKILL");
      } catch {
        /* gone */
      }
    }, graceMs);
    c.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    c.kill("SIGTERM");
  });
}
