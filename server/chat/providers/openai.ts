/** Any endpoint speaking the OpenAI chat-completions API (and the local llama.cpp server through it). */
import OpenAI from "openai";
import { LocalServerUnavailableError } from "../local-server";
import { Deadline, openAIChunkFinish, openAIChunkText, toOpenAIRequest, toProviderError } from "./streaming";
import {
  type ChatMessage,
  type ChatProvider,
  type CompletionResult,
  type GenerateOptions,
  ProviderError,
  type ProviderId,
} from "./types";

// ---------------------------------------------------------------------------------------------------------
// Providers

interface OpenAICompatibleOptions {
  id: ProviderId;
  label: string;
  /** Resolved before each request (the local server's URL is known once it is healthy). */
  baseUrl: (signal?: AbortSignal) => Promise<string>;
  apiKey: string | null;
  model: string | null;
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
  onTransportError?: () => void;
}

/** Any endpoint speaking the OpenAI chat-completions API, through the official `openai` client. */
export class OpenAICompatibleProvider implements ChatProvider {
  readonly id: ProviderId;
  readonly label: string;
  readonly model: string | null;
  private resolvedModel: string | null = null;
  private lastBase = "";

  constructor(private readonly o: OpenAICompatibleOptions) {
    this.id = o.id;
    this.label = o.label;
    this.model = o.model;
  }

  private async client(signal?: AbortSignal): Promise<OpenAI> {
    const baseURL = await this.o.baseUrl(signal);
    this.lastBase = baseURL;
    // maxRetries 0: a provider that is down should say so now, not after a minute of retries.
    return new OpenAI({
      baseURL,
      apiKey: this.o.apiKey || "not-needed",
      maxRetries: 0,
      timeout: this.o.timeoutMs,
      dangerouslyAllowBrowser: false,
    });
  }

  private ctx(model: string | null) {
    return {
      provider: this.id,
      label: this.label,
      where: this.lastBase || "(not started)",
      model,
      secret: this.o.apiKey,
    };
  }

  /** The model to ask for: the option, the configured one, or the endpoint's first. */
  private async modelFor(opts: GenerateOptions, signal?: AbortSignal): Promise<string> {
    const m = opts.model || this.o.model || this.resolvedModel;
    if (m) return m;
    const models = await this.listModels(signal);
    if (!models[0])
      throw new ProviderError("bad_model", `${this.label} lists no models; set one in Settings → Providers.`, this.id);
    this.resolvedModel = models[0];
    return models[0];
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const deadline = new Deadline(Math.min(this.o.timeoutMs, 15_000), signal);
    try {
      const client = await this.client(deadline.signal);
      const out: string[] = [];
      for await (const m of client.models.list({ signal: deadline.signal })) out.push(m.id);
      return out;
    } catch (e) {
      if (deadline.timedOut)
        throw new ProviderError(
          "timeout",
          `${this.label} did not list its models within ${Math.round(Math.min(this.o.timeoutMs, 15_000) / 1000)} s.`,
          this.id,
        );
      throw this.fail(e, null);
    } finally {
      deadline.done();
    }
  }

  private fail(e: unknown, model: string | null): ProviderError {
    const pe = toProviderError(e, this.ctx(model));
    if (pe.kind === "unreachable") this.o.onTransportError?.();
    return pe;
  }

  /** The setup stream() and complete() share: the model (kept in `at` for error messages), a client, the request. */
  private async prepare(
    messages: ChatMessage[],
    opts: GenerateOptions,
    deadline: Deadline,
    stream: boolean,
    at: { model: string | null },
  ) {
    const model = (at.model = await this.modelFor(opts, deadline.signal));
    const client = await this.client(deadline.signal);
    const body = toOpenAIRequest(messages, {
      model,
      maxTokens: opts.maxTokens ?? this.o.maxTokens,
      temperature: opts.temperature ?? this.o.temperature,
      stream,
      jsonSchema: opts.jsonSchema,
    });
    return { client, body, model };
  }

  /** What a failed request becomes: the local server down, our deadline, the caller's cancel, or the API's own error. */
  private failure(e: unknown, deadline: Deadline, model: string | null, timedOut: string): ProviderError {
    if (e instanceof LocalServerUnavailableError) return this.fail(e, model);
    const stopped = deadline.stopped(timedOut, this.id);
    if (stopped) return stopped;
    return this.fail(e, model);
  }

  async *stream(
    messages: ChatMessage[],
    opts: GenerateOptions = {},
  ): AsyncGenerator<string, CompletionResult, undefined> {
    const { timeoutMs, deadline } = Deadline.of(opts, this.o.timeoutMs);
    const at: { model: string | null } = { model: null };
    try {
      const { client, body: request, model } = await this.prepare(messages, opts, deadline, true, at);
      const body = request as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
      const stream = await client.chat.completions.create(body, { signal: deadline.signal, timeout: timeoutMs });
      let text = "";
      let finish: string | null = null;
      let usage: CompletionResult["usage"] = null;
      let answeredModel = model;
      for await (const chunk of stream) {
        deadline.touch();
        const err = (chunk as unknown as { error?: { message?: string } }).error;
        if (err)
          throw new ProviderError(
            "upstream",
            `${this.label} reported an error mid-reply: ${err.message ?? "unknown"}`,
            this.id,
          );
        if (chunk.model) answeredModel = chunk.model;
        if (chunk.usage)
          usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        finish = openAIChunkFinish(chunk) ?? finish;
        const t = openAIChunkText(chunk);
        if (t) {
          text += t;
          yield t;
        }
      }
      // The SDK ends an aborted stream quietly: say why it stopped.
      if (deadline.signal.aborted) throw deadline.signal.reason ?? new Error("aborted");
      return { text, model: answeredModel, finishReason: finish, usage };
    } catch (e) {
      throw this.failure(
        e,
        deadline,
        at.model,
        `${this.label} sent nothing for ${Math.round(timeoutMs / 1000)} s (at ${this.lastBase || "?"}); giving up.`,
      );
    } finally {
      deadline.done();
    }
  }

  async complete(messages: ChatMessage[], opts: GenerateOptions = {}): Promise<CompletionResult> {
    const { timeoutMs, deadline } = Deadline.of(opts, this.o.timeoutMs);
    const at: { model: string | null } = { model: null };
    try {
      const { client, body: request, model } = await this.prepare(messages, opts, deadline, false, at);
      const body = request as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
      const r = await client.chat.completions.create(body, { signal: deadline.signal, timeout: timeoutMs });
      // Something answered, but not a chat completion (a web page, another API): say so, never what it said.
      if (!r || typeof r !== "object" || !Array.isArray(r.choices))
        throw new ProviderError(
          "upstream",
          `${this.label} answered, but not with a chat completion: is ${this.lastBase || "the base URL"} an OpenAI-compatible endpoint?`,
          this.id,
        );
      const choice = r.choices[0];
      return {
        text: typeof choice?.message?.content === "string" ? choice.message.content : "",
        model: r.model || model,
        finishReason: choice?.finish_reason ?? null,
        usage: r.usage ? { inputTokens: r.usage.prompt_tokens, outputTokens: r.usage.completion_tokens } : null,
      };
    } catch (e) {
      throw this.failure(
        e,
        deadline,
        at.model,
        `${this.label} did not answer within ${Math.round(timeoutMs / 1000)} s (at ${this.lastBase || "?"}).`,
      );
    } finally {
      deadline.done();
    }
  }
}
