"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { parseCommand } from "@/server/chat/commands";
import { readSseJson } from "@/server/chat/sse";
import type { TurnEvent } from "@/server/chat/turn";
import type { StoredMessage } from "@/server/services/conversation-service";
import { useTRPC } from "../_trpc/client";
import { ConversationList } from "./conversation-list";
import { MessageView, type UiMessage } from "./message";
import { ConversationMemoryBar, SharingConsentDialog, type SharingQuestion } from "./privacy-chat";
import { ProviderPicker } from "./provider-picker";

const BTN = "rounded border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";
const BTN_PRIMARY = "rounded bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900";

const fromStored = (m: StoredMessage): UiMessage => ({ ...m, status: "done" });
let tmp = 0;
const tmpId = (p: string) => `tmp-${p}-${Date.now()}-${++tmp}`;

/** The chat page: conversations on the side, the conversation with streamed replies, the box to type in. */
export function ChatApp({ conversationId: initialId, initialSpace }: { conversationId?: string; initialSpace?: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const [conversationId, setConversationId] = useState<string | undefined>(initialId);
  const [messages, setMessages] = useState<UiMessage[]>([]);
  const [draft, setDraft] = useState("");
  const [space, setSpace] = useState(initialSpace ?? "personal");
  const [streaming, setStreaming] = useState(false);
  const [temporary, setTemporary] = useState(false);
  const [sharingQuestion, setSharingQuestion] = useState<SharingQuestion | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const listRef = useRef<HTMLOListElement | null>(null);
  const loadedFor = useRef<string | undefined>(undefined);

  const status = useQuery({ ...trpc.chat.status.queryOptions(), refetchInterval: streaming ? false : 10_000 });
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const conversation = useQuery({ ...trpc.conversations.get.queryOptions({ id: conversationId ?? "" }), enabled: Boolean(conversationId) && !streaming });

  // Load the stored conversation when it is opened (not while our own reply streams into it).
  useEffect(() => {
    if (!conversation.data || streaming) return;
    if (loadedFor.current === conversation.data.conversation.id && messages.length >= conversation.data.messages.length) return;
    loadedFor.current = conversation.data.conversation.id;
    setMessages(conversation.data.messages.map(fromStored));
    setSpace(conversation.data.conversation.spaceId);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conversation.data, streaming]);

  useEffect(() => {
    setConversationId(initialId);
    if (!initialId) {
      loadedFor.current = undefined;
      setMessages([]);
    }
  }, [initialId]);

  useEffect(() => {
    const el = listRef.current?.lastElementChild;
    if (el && "scrollIntoView" in el) (el as HTMLElement).scrollIntoView({ block: "end" });
  }, [messages]);

  const refreshLists = useCallback(() => {
    void qc.invalidateQueries({ queryKey: trpc.conversations.list.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.chat.status.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.memory.spaces.queryKey() });
  }, [qc, trpc]);

  const undo = useMutation(
    trpc.chat.undoForget.mutationOptions({
      onSuccess: (r) => setMessages((ms) => ms.map((m) => (m.id === r.message.id ? fromStored(r.message) : m))),
    }),
  );

  const patch = (id: string, f: (m: UiMessage) => UiMessage) => setMessages((ms) => ms.map((m) => (m.id === id ? f(m) : m)));

  async function send(text: string) {
    if (!text.trim() || streaming) return;
    const userId = tmpId("u");
    let replyId = tmpId("a");
    setMessages((ms) => [
      ...ms,
      { id: userId, role: "user", content: text, recalled: null, command: null, status: "done" },
      { id: replyId, role: "assistant", content: "", recalled: null, command: null, status: "streaming" },
    ]);
    setDraft("");
    setStreaming(true);
    const abort = new AbortController();
    abortRef.current = abort;
    let finished = false;
    const fail = (message: string) => patch(replyId, (m) => ({ ...m, status: "error", error: message }));
    try {
      const res = await fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ conversationId, space: conversationId ? undefined : space, message: text, temporary: !conversationId && temporary ? true : undefined }),
        signal: abort.signal,
      });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        fail(body?.error?.message ?? `The chat request failed (HTTP ${res.status}).`);
        finished = true;
        return;
      }
      for await (const ev of readSseJson<TurnEvent>(res.body)) {
        switch (ev.type) {
          case "start": {
            const id = ev.conversation.id;
            loadedFor.current = id;
            if (id !== conversationId) {
              setConversationId(id);
              window.history.replaceState(null, "", `/c/${id}`);
            }
            setSpace(ev.conversation.spaceId);
            patch(userId, () => fromStored(ev.userMessage));
            void qc.invalidateQueries({ queryKey: trpc.conversations.list.queryKey() });
            break;
          }
          case "recall":
            patch(replyId, (m) => ({ ...m, recalled: ev.memories, recallError: ev.error }));
            break;
          case "sent":
            patch(replyId, (m) => ({ ...m, sent: ev.sent }));
            break;
          case "consent": {
            // Nothing was stored or sent: ask, then send the message again (privacy-chat.tsx).
            setMessages((ms) => ms.filter((m) => m.id !== userId && m.id !== replyId));
            setSharingQuestion({ endpoint: ev.endpoint, memories: ev.memories, text });
            finished = true;
            break;
          }
          case "provider":
            patch(replyId, (m) => ({ ...m, provider: ev.label }));
            break;
          case "delta":
            patch(replyId, (m) => ({ ...m, content: m.content + ev.text }));
            break;
          case "command":
          case "done": {
            const stored = fromStored(ev.message);
            patch(replyId, (m) => ({ ...stored, recallError: m.recallError, provider: m.provider }));
            replyId = stored.id;
            finished = true;
            break;
          }
          case "error":
            if (ev.partial) {
              const stored = ev.partial;
              patch(replyId, (m) => ({ ...fromStored(stored), status: "error", error: ev.message, recallError: m.recallError }));
              replyId = stored.id;
            } else fail(ev.message);
            finished = true;
            break;
        }
      }
      if (!finished) fail("The connection closed before the reply finished.");
    } catch (e) {
      if (abort.signal.aborted) patch(replyId, (m) => ({ ...m, status: m.content ? "done" : "error", error: m.content ? null : "Stopped." }));
      else fail(`Could not reach Memo: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      abortRef.current = null;
      setStreaming(false);
      refreshLists();
    }
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void send(draft);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send(draft);
    }
  };

  const newChat = () => {
    abortRef.current?.abort();
    loadedFor.current = undefined;
    setConversationId(undefined);
    setMessages([]);
    setTemporary(false);
    router.push(space === "personal" ? "/" : `/?space=${encodeURIComponent(space)}`);
  };

  const cmd = parseCommand(draft);
  const st = status.data;
  const notFound = conversation.error?.data?.code === "NOT_FOUND" || conversation.error?.data?.code === "BAD_REQUEST";
  const title = conversation.data?.conversation.title;

  return (
    <div className="flex flex-col gap-4 md:flex-row">
      <ConversationList currentId={conversationId} onNew={newChat} onDeleted={(id) => id === conversationId && newChat()} />
      <section aria-label="Conversation" className="min-w-0 flex-1 space-y-3">
        <h1 className="truncate text-xl font-semibold" data-testid="conversation-title">
          {conversationId ? (title ?? "Conversation") : "New conversation"}
        </h1>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <label className="flex items-center gap-1 text-sm">
            <span className="text-zinc-500">Space</span>
            <select
              aria-label="Space"
              value={space}
              disabled={Boolean(conversationId)}
              title={conversationId ? "A conversation stays in its space" : "The space this conversation's memories belong to"}
              onChange={(e) => setSpace(e.target.value)}
              className="max-w-40 rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900"
            >
              {Array.from(new Set([space, ...(spaces.data ?? ["personal"])])).map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <ProviderPicker />
        </div>
        <ConversationMemoryBar conversation={conversation.data?.conversation} isNew={!conversationId} temporary={temporary} onTemporaryChange={setTemporary} />
        {sharingQuestion && (
          <SharingConsentDialog
            question={sharingQuestion}
            onAnswered={() => {
              const q = sharingQuestion;
              setSharingQuestion(null);
              void send(q.text);
            }}
            onCancel={() => {
              setDraft(sharingQuestion.text);
              setSharingQuestion(null);
            }}
          />
        )}

        {st && !st.ready && (
          <div role="status" className="space-y-1 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-800 dark:bg-amber-950" data-testid="no-provider">
            <p className="font-medium">No chat provider is ready.</p>
            <p>{st.problem}</p>
            <p>
              <Link href="/settings#providers" className="text-blue-700 underline dark:text-blue-400">
                Configure a provider in Settings
              </Link>
            </p>
          </div>
        )}
        {st && st.persist.failed.length > 0 && (
          <p className="rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
            {st.persist.failed.length} exchange(s) could not be saved to memory ({st.persist.failed.at(-1)?.error}); they will be retried at the next start.
          </p>
        )}
        {notFound && (
          <p role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            This conversation does not exist (it may have been deleted). <Link href="/" className="underline">Start a new one</Link>.
          </p>
        )}

        <ol ref={listRef} className="space-y-4" aria-label="Messages" aria-live="polite" data-testid="messages">
          {messages.length === 0 && !notFound && (
            <li className="rounded border border-dashed border-zinc-300 p-4 text-sm text-zinc-500 dark:border-zinc-700">
              Ask anything: what you said in earlier conversations is recalled by meaning and by keyword, and shown under each reply. Type{" "}
              <code>/remember &lt;text&gt;</code> to pin a fact, <code>/forget &lt;pattern&gt;</code> to forget, <code>/help</code> for commands.
            </li>
          )}
          {messages.map((m) => (
            <MessageView key={m.id} m={m} onUndo={(id) => undo.mutate({ messageId: id })} undoing={undo.isPending} />
          ))}
        </ol>

        <form onSubmit={onSubmit} aria-label="Send a message" className="sticky bottom-0 space-y-1 bg-zinc-50 pb-2 pt-1 dark:bg-zinc-950">
          <label htmlFor="chat-input" className="sr-only">
            Message
          </label>
          <div className="flex items-end gap-2">
            <textarea
              id="chat-input"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={onKeyDown}
              rows={Math.min(8, Math.max(2, draft.split("\n").length))}
              placeholder="Message Memo…  (/remember, /forget, /help)"
              className="min-w-0 flex-1 resize-none rounded border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
            />
            {streaming ? (
              <button type="button" className={BTN} onClick={() => abortRef.current?.abort()}>
                Stop
              </button>
            ) : (
              <button type="submit" className={BTN_PRIMARY} disabled={!draft.trim()}>
                Send
              </button>
            )}
          </div>
          <p className="text-xs text-zinc-500" data-testid="composer-hint">
            {cmd?.type === "remember"
              ? "Will remember this as a pinned memory."
              : cmd?.type === "forget"
                ? "Will forget the memories that contain this text (undo possible for 7 days)."
                : cmd?.type === "invalid"
                  ? cmd.message
                  : "Enter to send, Shift+Enter for a new line."}
          </p>
        </form>
      </section>
    </div>
  );
}
