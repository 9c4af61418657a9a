/**
 * The background runner that learns facts (issue 42 item 2, docs/facts.md): it takes due jobs from the
 * persisted queue (server/memory/facts/queue.ts), asks the chosen model (fact-model.ts) ONE structured
 * `memo_facts` call per exchange — several exchanges of a space in one call when it is catching up — and
 * applies the checked answer (reconcile.ts, apply.ts). It never sits on a reply's path: a stored exchange
 * only queues a row and wakes it, and the runner yields to replies — it starts a call only in a quiet moment
 * (no chat turn or completion in flight, none for `quietMs`: they share the embedding server), and a call to
 * the local chat model (one slot, the one a reply needs) is cancelled when a turn begins and retried later,
 * the attempt not counted.
 *
 * Nothing is lost on bad model output or a provider error: the exchange stays a memory, the attempt is
 * recorded (ok, bad output, provider error), and the job is tried again with exponential back-off until it
 * has had its attempts (then `failed`, kept with its reason). Health stays green: learning is not the store.
 * Restart-safe: a job's facts and its `done` are one transaction; jobs a stopped process was running are
 * queued again at start (recoverInterrupted).
 * What a job learns from (the exchange, verbatim, and the facts it is checked against): fact-learner-work.ts.
 */
import crypto from "node:crypto";
import { appContext } from "../context";
import { runAsSystem } from "../core/acting";
import type { MemoContext } from "../core/context";
import { applyLearnedFacts, type AppliedCounts, hasCurrentText } from "../memory/facts/apply";
import { isStoredOrigin } from "../memory/facts/proposals";
import { batches, type CandidateFact, factsRequest, MAX_BATCH } from "../memory/facts/extract";
import {
  type AttemptOutcome,
  claimDueJobs,
  type FactJob,
  finishFactJob,
  nextDueAt,
  recordAttempt,
  recoverInterrupted,
  releaseFactJob,
  retryFactJobAt,
} from "../memory/facts/queue";
import { onRequestBegin, quietFor } from "../ops/inflight";
import { checkAnswer, describeReport } from "../memory/facts/reconcile";
import { settleFinishedRuns } from "../memory/facts/runs";
import { activeModel } from "../memory/index/model-check";
import { chooseFactModel, type FactModelChoice, learnersOf } from "./fact-model";
import { logPrompt } from "./prompt-log";
import { type ProviderId, providerFamily, resolveProviderConfig } from "./providers";
import type { EmbeddedTexts } from "./embedded-texts";
import { exchangeText, lookUpKnownFacts, type Work } from "./fact-learner-work";

export interface FactLearnerOptions {
  /** Exchanges per call when catching up. */
  batch?: number;
  /** Attempts a job gets after provider errors, and after bad output (a model that answers badly once usually does again). */
  maxAttempts?: number;
  maxBadOutput?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Tokens the model may write per exchange of a call. */
  maxTokensPerExchange?: number;
  /** A call starts only when no generating request has been in flight for this long (server/ops/inflight.ts). */
  quietMs?: number;
  log?: (level: "info" | "warn" | "error", msg: string) => void;
  now?: () => number;
}

/** What the learning runner is doing (health and Settings read it). */
export interface LearnerStatus {
  state: "idle" | "working" | "stopped";
  calls: number;
  lastCallAt: string | null;
  lastOutcome: AttemptOutcome | null;
  lastError: string | null;
}

/** What a call sent and to whom: shown under the reply like a turn's "Sent to". */
export interface LearningSent {
  provider: string;
  host: string;
  local: boolean;
  model: string | null;
  exchanges: number;
  knownFacts: number;
  /** The exact known-facts message sent before the exchange (the exchange itself is the chat's own text). */
  block: string;
}

/** Replacements kept for the person to decide, and those over the caps, for the attempt's record. */
function describeProposals(c: AppliedCounts): string {
  const n = [...c.proposed.values()].reduce((a, b) => a + b, 0);
  return [
    n ? `${n} replacement(s) proposed for the person to confirm` : "",
    c.overCap ? `${c.overCap} proposed replacement(s) over the cap dropped` : "",
  ]
    .filter(Boolean)
    .join("; ");
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The model the conversation picked, when the conversation's own provider is asked (not the local model instead). */
function job0Model(group: Work[], choice: Extract<FactModelChoice, { ok: true }>): string | null {
  const j = group[0]!.job;
  return j.model && j.provider === choice.provider.id ? j.model : null;
}

export class FactLearner {
  private loop: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly o: Required<FactLearnerOptions>;
  private st: LearnerStatus = { state: "idle", calls: 0, lastCallAt: null, lastOutcome: null, lastError: null };
  private embedded: EmbeddedTexts[] = [];

  constructor(
    private readonly ctx: () => MemoContext,
    opts: FactLearnerOptions = {},
  ) {
    this.o = {
      batch: opts.batch ?? MAX_BATCH,
      maxAttempts: opts.maxAttempts ?? 6,
      maxBadOutput: opts.maxBadOutput ?? 2,
      baseDelayMs: opts.baseDelayMs ?? 30_000,
      maxDelayMs: opts.maxDelayMs ?? 3_600_000,
      maxTokensPerExchange: opts.maxTokensPerExchange ?? 1024,
      quietMs: opts.quietMs ?? 2000,
      log:
        opts.log ??
        ((level, msg) =>
          (level === "error" ? console.error : level === "warn" ? console.warn : console.log)(`[facts] ${msg}`)),
      now: opts.now ?? Date.now,
    };
  }

  /**
   * The vectors a stored exchange already has (its chunks', its turn's queries): the look-up of known facts
   * takes a text's vector from them instead of embedding it again (embedded-texts.ts). The last few are kept.
   */
  offer(embedded: EmbeddedTexts): this {
    if (embedded.size) this.embedded = [embedded, ...this.embedded.filter((e) => e !== embedded)].slice(0, 16);
    return this;
  }

  /** Start (or continue) working through due jobs; returns at once. */
  wake(): void {
    if (this.stopped) return;
    if (this.loop) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // Everyone's jobs go through one runner: it never acts as the request that woke it.
    this.loop = runAsSystem(() => this.run()).finally(() => {
      this.loop = null;
      if (this.again && !this.stopped) this.wake();
      else this.scheduleNext();
    });
  }

  /** Resolves when no due job is left (jobs held by a back-off are not waited for). */
  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** Stop: the call in flight is cancelled and its jobs go back to the queue (a later start runs them). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.st.state = "stopped";
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort(new Error("the learning runner stopped"));
    await this.idle();
  }

  status(): LearnerStatus {
    return { ...this.st };
  }

  /** Replies first: wait until no chat turn or completion is in flight and none was for quietMs. */
  private async waitForQuiet(): Promise<void> {
    const step = Math.max(25, Math.min(this.o.quietMs, 250));
    while (!this.stopped && !quietFor(this.o.quietMs)) await new Promise((r) => setTimeout(r, step));
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    let next: string | null = null;
    try {
      next = nextDueAt(this.ctx().db);
    } catch {
      return; // the store closed (shutdown)
    }
    if (!next) return;
    const delay = Math.max(0, Date.parse(next) - this.o.now());
    this.timer = setTimeout(() => this.wake(), Math.min(delay + 5, 2 ** 31 - 1));
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    this.st.state = "working";
    try {
      do {
        this.again = false;
        for (;;) {
          await this.waitForQuiet();
          if (this.stopped) return;
          const db = this.ctx().db;
          const jobs = claimDueJobs(db, this.o.batch, this.o.now());
          if (!jobs.length) break;
          await this.process(jobs);
          settleFinishedRuns(db, this.o.now());
        }
      } while (this.again && !this.stopped);
    } catch (e) {
      this.o.log("error", `the learning runner failed: ${message(e)}`);
      this.st.lastError = message(e);
    } finally {
      if (!this.stopped) this.st.state = "idle";
    }
  }

  private async process(jobs: FactJob[]): Promise<void> {
    const db = this.ctx().db;
    const work: Work[] = [];
    for (const job of jobs) {
      const ex = exchangeText(db, job);
      if (ex) work.push({ job, ...ex });
      else finishFactJob(db, job.id, "skipped", { error: "its memories were forgotten or deleted" }, this.o.now());
    }
    if (!work.length) return;
    // The runner acts for the household, so each job is decided for ITS people (the person whose space it
    // is, and whoever wrote its memories there): their learning switch and memory sharing, never the owner's
    // for everyone (issue 48). The jobs of one claim share a space and a provider; those whose people chose
    // the same endpoint are asked together.
    const byEndpoint = new Map<string, { choice: Extract<FactModelChoice, { ok: true }>; work: Work[] }>();
    const cfg = resolveProviderConfig(db); // once for the claim
    for (const w of work) {
      const people = learnersOf(db, w.job.spaceId, w.sources);
      const choice = chooseFactModel(db, w.job.provider as ProviderId | null, people, cfg);
      if (!choice.ok) {
        finishFactJob(db, w.job.id, "skipped", { error: choice.reason }, this.o.now());
        continue;
      }
      const g = byEndpoint.get(choice.endpoint.key) ?? { choice, work: [] };
      g.work.push(w);
      byEndpoint.set(choice.endpoint.key, g);
    }
    for (const { choice, work: same } of byEndpoint.values())
      for (const group of batches(same)) {
        if (this.stopped) return this.requeue(group);
        await this.call(group, choice);
      }
  }

  /** After a failure: try again later with back-off, or give up once the job has had its attempts. */
  private retryOrFail(w: Work, error: string, maxAttempts: number): void {
    const db = this.ctx().db;
    if (w.job.attempts >= maxAttempts) {
      finishFactJob(db, w.job.id, "failed", { error: `${error} (after ${w.job.attempts} attempts)` }, this.o.now());
      this.o.log("warn", `gave up learning from exchange job ${w.job.id}: ${error}; the exchange is kept as memory`);
      return;
    }
    const delay = Math.min(this.o.baseDelayMs * 2 ** (w.job.attempts - 1), this.o.maxDelayMs);
    retryFactJobAt(db, w.job.id, this.o.now() + delay, error);
  }

  private requeue(group: Work[]): void {
    for (const w of group) retryFactJobAt(this.ctx().db, w.job.id, this.o.now(), "interrupted: the runner stopped");
  }

  private note(outcome: LearnerStatus["lastOutcome"], error: string | null): void {
    this.st.lastOutcome = outcome;
    this.st.lastError = error;
  }

  /** The facts the group's exchanges are checked against (fact-learner-work.ts); null: the jobs went back or wait a retry. */
  private async knownFacts(
    memo: MemoContext,
    group: Work[],
    replyBegan: () => boolean,
  ): Promise<CandidateFact[] | null> {
    try {
      return await lookUpKnownFacts(memo, group, this.embedded, replyBegan);
    } catch (e) {
      // The embedding server is down or busy: no call was made; try again later.
      for (const w of group) this.retryOrFail(w, `could not look up known facts: ${message(e)}`, this.o.maxAttempts);
      this.note("store_error", message(e));
      return null;
    }
  }

  private async call(group: Work[], choice: Extract<FactModelChoice, { ok: true }>): Promise<void> {
    const memo = this.ctx();
    const db = memo.db;
    const spaceId = group[0]!.job.spaceId;
    // A document's, an import's or the back-fill's passage is whoever wrote it: marked as data (issue 48).
    const exchanges = group.map((w) => ({ text: w.text, at: w.job.at, untrusted: isStoredOrigin(w.job.origin) }));
    // Replies first: once one has begun, no call starts and the jobs go back untried (the run loop waits
    // for the next quiet moment).
    const replyBegan = () => {
      if (quietFor(this.o.quietMs)) return false;
      for (const w of group) releaseFactJob(db, w.job.id);
      return true;
    };
    const candidates = await this.knownFacts(memo, group, replyBegan);
    if (!candidates) return;
    // The last look-up awaited the embedder: a reply may have begun meanwhile.
    if (replyBegan()) return;
    const req = factsRequest(exchanges, candidates);
    const e = choice.endpoint;
    const sent: LearningSent = {
      provider: `${e.label} (${e.host})`,
      host: e.host,
      local: e.local,
      model: choice.provider.model,
      exchanges: exchanges.length,
      knownFacts: candidates.length,
      block: req.knownBlock,
    };
    const base = { jobIds: group.map((w) => w.job.id), callId: crypto.randomUUID(), providerKey: e.key, sent };
    logPrompt("fact extraction", sent.provider, req.messages);
    const t0 = performance.now();
    let raw: string;
    this.st.calls++;
    this.st.lastCallAt = new Date(this.o.now()).toISOString();
    // A family with one slot (families.ts: the local chat server): a reply that begins meanwhile gets it,
    // this call is asked again later.
    const yieldCall = new AbortController();
    const unsubscribe = providerFamily(choice.provider.id).learning.oneSlot
      ? onRequestBegin(() => yieldCall.abort(new Error("a reply needs the model")))
      : null;
    try {
      const r = await choice.provider.complete(req.messages, {
        jsonSchema: req.jsonSchema,
        temperature: 0,
        maxTokens: this.o.maxTokensPerExchange * exchanges.length,
        signal: AbortSignal.any([this.abort.signal, yieldCall.signal]),
        ...(job0Model(group, choice) ? { model: job0Model(group, choice)! } : {}),
      });
      raw = r.text;
    } catch (err) {
      if (this.stopped) return this.requeue(group);
      if (yieldCall.signal.aborted) {
        for (const w of group) releaseFactJob(db, w.job.id);
        return;
      }
      const ms = performance.now() - t0;
      const detail = message(err);
      recordAttempt(db, { ...base, outcome: "provider_error", detail, ms }, this.o.now());
      for (const w of group) this.retryOrFail(w, `provider error: ${detail}`, this.o.maxAttempts);
      this.note("provider_error", detail);
      return;
    } finally {
      unsubscribe?.();
    }
    const ms = performance.now() - t0;
    const checked = checkAnswer(raw, { exchanges, candidates }, (t) => hasCurrentText(db, spaceId, t));
    if (!checked.ok) {
      const detail = `${checked.kind}: ${checked.detail}`;
      recordAttempt(db, { ...base, outcome: "bad_output", detail, ms }, this.o.now());
      for (const w of group) this.retryOrFail(w, `bad model output: ${detail}`, this.o.maxBadOutput);
      this.note("bad_output", detail);
      return;
    }
    try {
      const vectors = checked.facts.length ? await memo.embedder.embedDocuments(checked.facts.map((f) => f.text)) : [];
      const { model } = await activeModel(memo);
      applyLearnedFacts(
        db,
        spaceId,
        group.map((w) => ({ jobId: w.job.id, sources: w.sources, origin: w.job.origin, runId: w.job.runId })),
        checked.facts,
        vectors,
        model,
        (counts) =>
          recordAttempt(
            db,
            {
              ...base,
              outcome: "ok",
              detail: [describeReport(checked.report), describeProposals(counts)].filter(Boolean).join("; ") || null,
              added: counts.added,
              replaced: counts.replaced,
              ms,
            },
            this.o.now(),
          ),
      );
      this.note("ok", null);
    } catch (err) {
      // A good answer that could not be stored (embedding server down, the store refused): asked again later.
      const detail = `could not store the learned facts: ${message(err)}`;
      recordAttempt(db, { ...base, outcome: "store_error", detail, ms }, this.o.now());
      for (const w of group) this.retryOrFail(w, detail, this.o.maxAttempts);
      this.note("store_error", detail);
    }
  }
}

const g = globalThis as unknown as { __memoFactLearner?: FactLearner };

/** The app's runner (over appContext()). */
export function factLearner(): FactLearner {
  g.__memoFactLearner ??= new FactLearner(() => appContext());
  return g.__memoFactLearner;
}

export function setFactLearner(l: FactLearner | undefined): void {
  g.__memoFactLearner = l;
}

/** At start-up: jobs the last process left running go back to the queue, and the runner starts. */
export function startFactLearner(): void {
  try {
    const n = recoverInterrupted(appContext().db);
    if (n) console.warn(`[facts] ${n} fact-learning job(s) were interrupted by the last stop; running them again`);
    factLearner().wake();
  } catch (e) {
    console.error("[facts] could not start learning facts", e);
  }
}
