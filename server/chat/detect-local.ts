/**
 * Local provider detection: with no chat provider configured, look for an OpenAI-compatible server on
 * loopback — Ollama (11434), LM Studio (1234), llama-server (8080) — with `GET /v1/models` (1 s timeout),
 * and chat through the first one found with its first listed model. Re-checked every 30 s while none is
 * found (every 60 s once one is, so a stopped server is noticed). MEMO_DETECT_PORTS overrides the ports
 * (tests), MEMO_DETECT_LOCAL=0 or Settings turns it off; a configured provider always wins (providers.ts
 * only applies a detected server when nothing else is configured).
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { loadSetting } from "../core/settings-load";
import { writeSetting } from "../core/settings-store";

export const DEFAULT_DETECT_PORTS = [11434, 1234, 8080] as const;
const KNOWN: Record<number, string> = { 11434: "Ollama", 1234: "LM Studio", 8080: "llama-server" };
const SETTINGS_KEY = "chat.detectLocal";
export const PROBE_TIMEOUT_MS = 1000;
export const RECHECK_NONE_MS = 30_000;
export const RECHECK_FOUND_MS = 60_000;

export interface DetectedServer {
  port: number;
  /** What usually listens there ("Ollama"), or "OpenAI-compatible server". */
  name: string;
  baseUrl: string;
  models: string[];
  /** The model chat uses: the first listed. */
  model: string;
}

export interface DetectionStatus {
  enabled: boolean;
  /** Why it is off (null when on). */
  disabledReason: string | null;
  ports: number[];
  found: DetectedServer[];
  /** The server chat would use (the preferred port when found, else the first found). */
  chosen: DetectedServer | null;
  preferredPort: number | null;
  checkedAt: string | null;
}

const settingsSchema = z.object({
  enabled: z.boolean().optional(),
  preferredPort: z.number().int().min(1).max(65535).nullable().optional(),
});
type DetectSettings = z.infer<typeof settingsSchema>;

export function loadDetectSettings(db: Database.Database): DetectSettings {
  return loadSetting(db, SETTINGS_KEY, settingsSchema, {});
}

/** Turn detection on or off, or prefer one of the found servers (one statement). */
export function saveDetectSettings(db: Database.Database, patch: DetectSettings): DetectSettings {
  const next = settingsSchema.parse({ ...loadDetectSettings(db), ...settingsSchema.parse(patch) });
  writeSetting(db, SETTINGS_KEY, next);
  return next;
}

/** MEMO_DETECT_PORTS ("11434,1234"), else Ollama's, LM Studio's and llama-server's ports. */
export function detectionPorts(): number[] {
  const raw = process.env.MEMO_DETECT_PORTS?.trim();
  if (!raw) return [...DEFAULT_DETECT_PORTS];
  const ports = raw
    .split(/[\s,]+/)
    .map(Number)
    .filter((p) => Number.isInteger(p) && p > 0 && p < 65536);
  if (!ports.length) console.warn(`[chat] MEMO_DETECT_PORTS='${raw}' names no valid port; detection looks nowhere`);
  return ports;
}

export function detectionEnabled(db: Database.Database): { enabled: boolean; reason: string | null } {
  if (process.env.MEMO_DETECT_LOCAL === "0") return { enabled: false, reason: "MEMO_DETECT_LOCAL=0" };
  if (loadDetectSettings(db).enabled === false) return { enabled: false, reason: "turned off in Settings" };
  return { enabled: true, reason: null };
}

/** One port: an OpenAI-compatible server listing at least one model, or null. */
export async function probePort(port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<DetectedServer | null> {
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  try {
    const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    const models = (body.data ?? [])
      .map((m) => m.id)
      .filter((id): id is string => typeof id === "string" && id.length > 0);
    if (!models.length) return null;
    return { port, name: KNOWN[port] ?? "OpenAI-compatible server", baseUrl, models, model: models[0]! };
  } catch {
    return null;
  }
}

/**
 * The detector: remembers what the last probe found, so providers.ts can read it synchronously. One per
 * process (globalThis), started from boot.
 */
export class LocalDetector {
  private found: DetectedServer[] = [];
  private checkedAt: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<DetectedServer[]> | null = null;

  /** Probe every port now (in parallel; results in port order). */
  recheck(db: Database.Database): Promise<DetectedServer[]> {
    if (this.checking) return this.checking;
    const run = (async () => {
      await Promise.resolve(); // so `checking` is set before the finally below clears it
      try {
        if (!detectionEnabled(db).enabled) {
          this.found = [];
          return [];
        }
        const ports = detectionPorts();
        const results = await Promise.all(ports.map((p) => probePort(p)));
        const before = this.found.map((f) => f.baseUrl).join();
        this.found = results.filter((r): r is DetectedServer => r !== null);
        this.checkedAt = new Date().toISOString();
        const now = this.found.map((f) => f.baseUrl).join();
        if (now !== before) {
          console.info(
            this.found.length
              ? `[chat] found a local chat server: ${this.found.map((f) => `${f.name} at ${f.baseUrl} (${f.models.length} model${f.models.length > 1 ? "s" : ""})`).join(", ")}`
              : `[chat] no local chat server answers on ports ${ports.join(", ")}`,
          );
        }
        return this.found;
      } finally {
        this.checking = null;
      }
    })();
    this.checking = run;
    return run;
  }

  /**
   * Re-check on a timer while `shouldProbe()` says no provider is configured (boot passes a check of the
   * provider configuration), so a configured Memo never touches those ports.
   */
  start(db: Database.Database, shouldProbe: () => boolean): void {
    if (this.timer) return;
    const tick = async () => {
      try {
        if (shouldProbe()) await this.recheck(db);
      } catch (e) {
        console.warn(`[chat] local provider detection failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      this.timer = setTimeout(tick, this.found.length ? RECHECK_FOUND_MS : RECHECK_NONE_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** What the last probe found, if detection is on. */
  status(db: Database.Database): DetectionStatus {
    const en = detectionEnabled(db);
    const preferredPort = loadDetectSettings(db).preferredPort ?? null;
    const found = en.enabled ? this.found : [];
    return {
      enabled: en.enabled,
      disabledReason: en.reason,
      ports: detectionPorts(),
      found,
      chosen: found.find((f) => f.port === preferredPort) ?? found[0] ?? null,
      preferredPort,
      checkedAt: this.checkedAt,
    };
  }

  /** Forget what was found (tests). */
  clear(): void {
    this.found = [];
    this.checkedAt = null;
  }
}

const g = globalThis as unknown as { __memoDetector?: LocalDetector };

export function getLocalDetector(): LocalDetector {
  return (g.__memoDetector ??= new LocalDetector());
}

/** The detected server chat should use now, or null (off, or nothing found). */
export function detectedServer(db: Database.Database): DetectedServer | null {
  return g.__memoDetector?.status(db).chosen ?? null;
}
