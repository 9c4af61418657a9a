"use client";

import "highlight.js/styles/github-dark.css";
import "./markdown.css";
import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { useRef, type ComponentProps } from "react";
import type { CommandInfo, RecalledMemory } from "@/server/chat/conversations";
import { splitCutNote } from "@/server/chat/cut-short";
import { CopyButton } from "./copy-button";
import { localDate } from "../_ui/local-time";
import { TAP_FREQUENT } from "../_ui/styles";
import { WhoseBadge } from "../_ui/whose-badge";
import { MATCH_BADGE } from "../_ui/styles";

export interface UiMessage {
  id: string;
  role: "user" | "assistant" | "system";
  content: string;
  recalled: RecalledMemory[] | null;
  command: CommandInfo | null;
  status: "done" | "streaming" | "error";
  error?: string | null;
  /** What failed (the provider's error kind): "not_configured" when no model is connected. */
  errorKind?: string | null;
  /** Retrieval failed for this reply (it was answered without memories). */
  recallError?: string | null;
  provider?: string | null;
  /** What memory went to the provider with this reply's prompt (sent-to.tsx). */
  sent?: import("@/server/chat/memory-policy").SentMemory | null;
  createdAt?: string;
}

const num = (v: number | null, digits: number) => (v === null || v === undefined ? "—" : v.toFixed(digits));

/** A code block with its own "Copy code" button. */
function CodeBlock({ node, ...props }: ComponentProps<"pre"> & { node?: unknown }) {
  void node;
  const ref = useRef<HTMLPreElement>(null);
  return (
    <div className="group relative">
      <pre ref={ref} {...props} />
      <div className="absolute right-1 top-1 opacity-80 group-hover:opacity-100">
        <CopyButton
          label="Copy code"
          text={() => ref.current?.textContent ?? ""}
          className="rounded bg-zinc-700 px-1.5 py-0.5 text-xs font-medium text-zinc-100 hover:bg-zinc-600"
        />
      </div>
    </div>
  );
}

/**
 * A link in a reply opens in a new tab and tells the site nothing of Memo. An unsafe one (javascript:, data:)
 * has its address stripped by react-markdown: it shows as its text, not as a link that reloads the page.
 */
function ReplyLink({ node, href, children, ...props }: ComponentProps<"a"> & { node?: unknown }) {
  void node;
  if (!href) return <span data-testid="unsafe-link">{children}</span>;
  // A footnote's link stays on the page.
  if (href.startsWith("#"))
    return (
      <a {...props} href={href}>
        {children}
      </a>
    );
  return (
    <a {...props} href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

const COMPONENTS = { pre: CodeBlock, a: ReplyLink };

export function Markdown({ text }: { text: string }) {
  return (
    <div className="md break-words">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[[rehypeHighlight, { detect: false }]]}
        components={COMPONENTS}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}

/** A reply cut short is stored with a note appended (server/chat/cut-short.ts): show it apart, once. */
export const splitInterrupted = splitCutNote;

/** Under a reply: which memories went into its prompt, and why each was recalled. */
export function RecalledList({ memories }: { memories: RecalledMemory[] }) {
  // Nothing reached the minimum confidence: the reply was written without any memory.
  if (!memories.length)
    return (
      <p className="mt-2 text-xs text-zinc-500" data-testid="no-memory-used">
        No memory used
      </p>
    );
  return (
    <details className="mt-2 rounded border border-zinc-200 text-sm dark:border-zinc-800" data-testid="recalled">
      <summary className="cursor-pointer select-none px-2 py-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">
        Recalled memories ({memories.length})
      </summary>
      <ol className="space-y-2 px-2 pb-2">
        {memories.map((m) => (
          <li key={m.id} className="border-t border-zinc-100 pt-2 dark:border-zinc-800" data-testid="recalled-memory">
            <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
              <time dateTime={m.timestamp} suppressHydrationWarning>
                {localDate(m.timestamp)}
              </time>
              <span
                className={`rounded px-1.5 py-0.5 font-medium ${MATCH_BADGE[m.matchType] ?? ""}`}
                data-testid="recalled-match"
              >
                {m.matchType}
              </span>
              <span>importance {m.importance}</span>
              {m.pinned && <span>pinned</span>}
              <WhoseBadge whose={m.whose} />
              {m.documentName ? (
                <span className="min-w-0 break-all text-zinc-600 dark:text-zinc-300" data-testid="recalled-source">
                  from {m.documentName}
                  {m.section ? ` · ${m.section}` : ""}
                </span>
              ) : (
                <span className="text-zinc-400">{m.kind}</span>
              )}
            </div>
            <p
              dir="auto"
              className="mt-1 whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-200"
              data-testid="recalled-content"
            >
              {m.content.length > 600 ? `${m.content.slice(0, 600)}…` : m.content}
            </p>
            {m.fact && (
              <p className="mt-1 text-xs text-zinc-700 dark:text-zinc-300" data-testid="recalled-fact">
                <span className="text-zinc-500">
                  {m.fact.current ? "What I know from it: " : "What it said then: "}
                </span>
                <a href="/memory/knows" className="underline decoration-dotted underline-offset-2">
                  {m.fact.text}
                </a>{" "}
                <span className="text-zinc-500">
                  ({m.fact.current ? "since" : "from"} {localDate(m.fact.validFrom)}
                  {!m.fact.current && m.fact.validTo ? ` until ${localDate(m.fact.validTo)}` : ""})
                </span>
              </p>
            )}
            <dl className="mt-1 flex flex-wrap gap-x-3 text-xs tabular-nums text-zinc-500" aria-label="Score breakdown">
              <div title="Calibrated confidence that this memory is relevant: only memories at or above the minimum confidence are used">
                <dt className="inline">confidence </dt>
                <dd className="inline" data-testid="recalled-confidence">
                  {num(m.scores.confidence ?? null, 2)}
                </dd>
              </div>
              <div>
                <dt className="inline">similarity </dt>
                <dd className="inline">{num(m.scores.similarity, 3)}</dd>
              </div>
              <div>
                <dt className="inline">FTS rank </dt>
                <dd className="inline">{m.scores.ftsRank === null ? "—" : `#${m.scores.ftsRank}`}</dd>
              </div>
              <div>
                <dt className="inline">RRF </dt>
                <dd className="inline">{num(m.scores.rrf, 4)}</dd>
              </div>
              <div>
                <dt className="inline">score </dt>
                <dd className="inline">{num(m.scores.final, 4)}</dd>
              </div>
            </dl>
            {m.moves && m.moves.length > 0 && (
              <p
                className="mt-1 flex flex-wrap gap-1 text-xs text-zinc-600 dark:text-zinc-400"
                data-testid="recalled-moves"
                title="What moved this memory in the ranking (Memory → Debug Search shows the same)"
              >
                <span className="text-zinc-500">moved by</span>
                {m.moves.map((x) => (
                  <span key={x} className="rounded bg-zinc-100 px-1.5 dark:bg-zinc-800">
                    {x}
                  </span>
                ))}
              </p>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}

export function CommandDetails({
  command,
  onUndo,
  undoing,
}: {
  command: CommandInfo;
  onUndo?: () => void;
  undoing?: boolean;
}) {
  if (command.type !== "forget" || command.count === 0) return null;
  const expired = Date.parse(command.undo.until) < Date.now();
  return (
    <div className="mt-2 space-y-2 text-sm" data-testid="forget-result">
      <ul className="space-y-1 rounded border border-zinc-200 p-2 dark:border-zinc-800">
        {command.items.map((i) => (
          <li
            key={i.id}
            className="break-words text-zinc-600 line-through decoration-zinc-400 dark:text-zinc-400"
            data-testid="forgotten-item"
          >
            <time className="mr-2 text-xs no-underline" dateTime={i.timestamp} suppressHydrationWarning>
              {localDate(i.timestamp)}
            </time>
            {i.content.length > 300 ? `${i.content.slice(0, 300)}…` : i.content}
          </li>
        ))}
      </ul>
      {command.undoneAt ? (
        <p className="text-xs text-emerald-700 dark:text-emerald-400" data-testid="forget-undone">
          Undone: {command.count} memor{command.count === 1 ? "y" : "ies"} restored.
        </p>
      ) : expired ? (
        <p className="text-xs text-zinc-500">The undo period has passed.</p>
      ) : (
        <button
          type="button"
          onClick={onUndo}
          disabled={undoing}
          className={`rounded border border-zinc-300 px-2 py-1 text-xs font-medium hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800 ${TAP_FREQUENT}`}
        >
          Undo
        </button>
      )}
    </div>
  );
}
