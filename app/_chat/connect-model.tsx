import Link from "next/link";

/**
 * Above the chat while no chat provider is ready: one short card, the ways to connect a model folded
 * under "Other ways" (the checklist and a failed reply point here instead of repeating it). `problem`
 * is the provider status's own explanation (server/chat/providers/config.ts), environment variables included.
 */
export function ConnectModelCard({ problem }: { problem: string | null }) {
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
        <p className="mt-1">
          Run <code>npm run models:pull -- --chat</code> for a local model (Qwen2.5-1.5B-Instruct, ~1.1 GB), or start
          Ollama or LM Studio: Memo finds them on its own.
        </p>
        {problem && <p className="mt-1 break-words">{problem}</p>}
      </details>
    </section>
  );
}
