/**
 * Prompts and memory contents never go to the log, unless the owner opts in for debugging with
 * MEMO_LOG_PROMPTS=1: then every prompt sent to a provider (memory block included) is logged, and the log
 * says, once per process, that it now holds private text.
 */
import type { ChatMessage } from "./providers";

export function promptLoggingOn(): boolean {
  return process.env.MEMO_LOG_PROMPTS === "1";
}

const g = globalThis as unknown as { __memoPromptLogWarned?: boolean };

export const PROMPT_LOG_WARNING =
  "WARNING: MEMO_LOG_PROMPTS=1: prompts sent to chat providers, recalled memories included, are written to this log. Unset it when you are done debugging.";

/** Warn (once per process) when prompt logging is on; called at start-up and before the first logged prompt. */
export function warnIfPromptLogging(log: (m: string) => void = console.warn): void {
  if (!promptLoggingOn() || g.__memoPromptLogWarned) return;
  g.__memoPromptLogWarned = true;
  log(`[memo] ${PROMPT_LOG_WARNING}`);
}

/** Log a prompt on its way to a provider; does nothing unless MEMO_LOG_PROMPTS=1. */
export function logPrompt(
  where: string,
  provider: string,
  messages: ChatMessage[],
  log: (m: string) => void = console.log,
): void {
  if (!promptLoggingOn()) return;
  warnIfPromptLogging();
  log(
    `[prompt] ${where} → ${provider}, ${messages.length} message(s):\n${messages.map((m) => `--- ${m.role}\n${m.content}`).join("\n")}\n--- end of prompt`,
  );
}
