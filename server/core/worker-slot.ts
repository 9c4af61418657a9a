import { Worker } from "node:worker_threads";

/**
 * One worker thread kept for one kind of off-thread work (document parsing, import planning), with a heap
 * cap: made on first use, made again when the cap changes, emptied when it exits. The worker file is loaded
 * from the source tree and compiled by tsx (it is a separate module graph the Next bundle does not contain).
 */
export class WorkerSlot {
  private held: { w: Worker; memoryMb: number } | null = null;

  constructor(private readonly file: string) {}

  /** The worker for this heap cap (the one held, or a fresh one in its place). */
  get(memoryMb: number): Worker {
    if (this.held && this.held.memoryMb === memoryMb) return this.held.w;
    if (this.held) void this.held.w.terminate();
    const w = new Worker(this.file, {
      execArgv: ["--import", "tsx"],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, memoryMb / 4) },
    });
    w.on("error", () => undefined); // each job listens for its own; this keeps an idle worker's failure quiet
    w.on("exit", () => {
      if (this.held?.w === w) this.held = null;
    });
    this.held = { w, memoryMb };
    return w;
  }

  /** The worker held now, if any. */
  get current(): Worker | null {
    return this.held?.w ?? null;
  }

  /** End the worker held (the next job gets a fresh one). */
  stop(): void {
    const w = this.held?.w;
    this.held = null;
    if (w) void w.terminate();
  }
}
