/** Anthropic's Messages API. */
import Anthropic from "@anthropic-ai/sdk";
import {
  Deadline,
  anthropicEventError,
  anthropicEventText,
  anthropicToolAnswer,
  toAnthropicRequest,
  toProviderError,
} from "./streaming";
import {
  type ChatMessage,
  type ChatProvider,
  type CompletionResult,
  type GenerateOptions,
  PROVIDER_LABELS,
  ProviderError,
} from "./types";

interface AnthropicOptions {
  apiKey: string;
  model: string;
  baseUrl: string | null;
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
}

/** Anthropic's Messages API through the official SDK. */
export class AnthropicProvider implements ChatProvider {
  readonly id = "anthropic" as const;
  readonly label = PROVIDER_LABELS.anthropic;
  readonly model: string;
  private readonly client: Anthropic;

  constructor(private readonly o: AnthropicOptions) {
    this.model = o.model;
    this.client = new Anthropic({
      apiKey: o.apiKey,
      baseURL: o.baseUrl ?? undefined,
      maxRetries: 0,
      timeout: o.timeoutMs,
    });
  }

  private ctx(model: string | null) {
    return {
      provider: this.id,
      label: this.label,
      where: this.o.baseUrl ?? "api.anthropic.com",
      model,
      secret: this.o.apiKey,
    };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const deadline = new Deadline(Math.min(this.o.timeoutMs, 15_000), signal);
    try {
      const out: string[] = [];
      for await (const m of this.client.models.list({ limit: 100 }, { signal: deadline.signal })) out.push(m.id);
      return out;
    } catch (e) {
      if (deadline.timedOut)
        throw new ProviderError("timeout", `${this.label} did not list its models in time.`, this.id);
      throw toProviderError(e, this.ctx(null));
    } finally {
      deadline.done();
    }
  }

  /** The request body stream() and complete() share. */
  private request(messages: ChatMessage[], opts: GenerateOptions, model: string, stream: boolean) {
    return toAnthropicRequest(messages, {
      model,
      maxTokens: opts.maxTokens ?? this.o.maxTokens,
      temperature: opts.temperature ?? this.o.temperature,
      stream,
      jsonSchema: opts.jsonSchema,
    });
  }

  /** What a failed request becomes: our deadline, the caller's cancel, or the API's own error. */
  private failure(e: unknown, deadline: Deadline, model: string, timedOut: string): ProviderError {
    const stopped = deadline.stopped(timedOut, this.id);
    if (stopped) return stopped;
    return toProviderError(e, this.ctx(model));
  }

  async *stream(
    messages: ChatMessage[],
    opts: GenerateOptions = {},
  ): AsyncGenerator<string, CompletionResult, undefined> {
    const { timeoutMs, deadline } = Deadline.of(opts, this.o.timeoutMs);
    const model = opts.model || this.o.model;
    try {
      const body = this.request(messages, opts, model, true) as Anthropic.Messages.MessageCreateParamsStreaming;
      const stream = await this.client.messages.create(body, { signal: deadline.signal, timeout: timeoutMs });
      let text = "";
      let finish: string | null = null;
      let answeredModel = model;
      let inputTokens = 0;
      let outputTokens = 0;
      for await (const ev of stream) {
        deadline.touch();
        const err = anthropicEventError(ev);
        if (err) throw err;
        if (ev.type === "message_start") {
          answeredModel = ev.message.model || model;
          inputTokens = ev.message.usage?.input_tokens ?? 0;
        } else if (ev.type === "message_delta") {
          finish = ev.delta.stop_reason ?? finish;
          outputTokens = ev.usage?.output_tokens ?? outputTokens;
        }
        const t = anthropicEventText(ev);
        if (t) {
          text += t;
          yield t;
        }
      }
      if (deadline.signal.aborted) throw deadline.signal.reason ?? new Error("aborted");
      return { text, model: answeredModel, finishReason: finish, usage: { inputTokens, outputTokens } };
    } catch (e) {
      throw this.failure(
        e,
        deadline,
        model,
        `${this.label} sent nothing for ${Math.round(timeoutMs / 1000)} s; giving up.`,
      );
    } finally {
      deadline.done();
    }
  }

  async complete(messages: ChatMessage[], opts: GenerateOptions = {}): Promise<CompletionResult> {
    const { timeoutMs, deadline } = Deadline.of(opts, this.o.timeoutMs);
    const model = opts.model || this.o.model;
    try {
      const body = this.request(messages, opts, model, false) as Anthropic.Messages.MessageCreateParamsNonStreaming;
      const r = await this.client.messages.create(body, { signal: deadline.signal, timeout: timeoutMs });
      const text = opts.jsonSchema
        ? anthropicToolAnswer(r.content, opts.jsonSchema.name)
        : r.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      return {
        text,
        model: r.model || model,
        finishReason: r.stop_reason ?? null,
        usage: { inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens },
      };
    } catch (e) {
      throw this.failure(e, deadline, model, `${this.label} did not answer within ${Math.round(timeoutMs / 1000)} s.`);
    } finally {
      deadline.done();
    }
  }
}
