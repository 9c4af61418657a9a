import Link from "next/link";

/**
 * Above the chat while no chat provider is ready: one short card, the other ways to connect a model folded
 * under "Other ways" (the checklist and a failed reply point here instead of repeating it). What is folded
 * adds to the line above it, never repeats it: a local model, a local server, the environment variables,
 * and `unready`, why the selected provider is not ready (server/chat/providers/config.ts), when one is
 * selected (none selected is what the line above says already).
 */
export function ConnectModelCard({ unready, selected }: { unready: string | null; selected: boolean }) {
  return (
    <section
      aria-labelledby="connect-model-heading"
      data-testid="no-provider"
      className="mx-3 mt-2 rounded border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm dark:border-amber-800 dark:bg-amber-950"
    >
      <p>
        <strong id="connect-model-heading" role="heading" aria-level={2}>
          Connect a model
        </strong>{" "}
        to get answers:{" "}
        <Link href="/settings#providers" className="text-blue-700 underline dark:text-blue-400">
          Settings → Providers
        </Link>
        . <code>/remember</code> and <code>/forget</code> work without one.
      </p>
      <details className="text-xs text-zinc-700 dark:text-zinc-300">
        <summary className="cursor-pointer select-none">Other ways to connect one</summary>
        {selected && unready && <p className="mt-1 break-words">{unready}</p>}
        <p className="mt-1">
          Run <code>npm run models:pull -- --chat</code> for a local model (Qwen2.5-1.5B-Instruct, ~1.1 GB), or start
          Ollama or LM Studio: Memo finds them on its own.
        </p>
        <p className="mt-1 break-words">
          Or start Memo with environment variables, e.g.{" "}
          <code>MEMO_PROVIDER=openai MEMO_OPENAI_BASE_URL=http://localhost:11434/v1 MEMO_OPENAI_MODEL=llama3.2</code>,
          or <code>MEMO_PROVIDER=llama MEMO_CHAT_MODEL=/path/to/model.gguf</code>.
        </p>
      </details>
    </section>
  );
}
