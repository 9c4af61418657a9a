"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Conversation } from "@/server/chat/conversations";
import { useTRPC } from "../_trpc/client";
import { ChatToolbar } from "./chat-toolbar";
import { Composer } from "./composer";
import { ChatNotices, ConversationDrawer, EmptyChatHint, JumpToLatest } from "./chat-app-parts";
import { ConversationList } from "./conversation-list";
import { fromStored, isStoredId, useChatTurn } from "./use-chat-turn";
import { useDraft } from "./use-draft";
import { useShortcuts } from "./use-shortcuts";
import { useStickToBottom } from "./use-stick-to-bottom";
import { useMessageAnchor } from "./use-message-anchor";
import { MessageView } from "./message-view";
import { ConversationMemoryBar, SharingConsentDialog, type SharingQuestion } from "./privacy-chat";

/**
 * The chat page: an app shell under the site header. Conversations on the side (a drawer on a phone),
 * the conversation in its own scrolling area, the composer below it (never over it).
 */
export function ChatApp({
  conversationId: initialId,
  initialSpace,
}: {
  conversationId?: string;
  initialSpace?: string;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const [conversationId, setConversationId] = useState<string | undefined>(initialId);
  const [space, setSpace] = useState(initialSpace ?? "personal");
  const [editingId, setEditingId] = useState<string | null>(null);
  const [drawer, setDrawer] = useState(false);
  const inputRef = useRef<HTMLTextAreaElement | null>(null);
  const loadedFor = useRef<string | undefined>(undefined);
  const [draft, setDraft] = useDraft(conversationId ?? `new:${space}`);
  const scroll = useStickToBottom();
  const refreshLists = useCallback(() => {
    void qc.invalidateQueries({ queryKey: trpc.conversations.list.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.conversations.search.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.chat.status.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.memory.spaces.queryKey() });
  }, [qc, trpc]);

  const [temporary, setTemporary] = useState(false);
  // A new chat's shared spaces, picked before its first message and sent with it (cleared once it starts).
  const [pendingShared, setPendingShared] = useState<string[]>([]);
  const [sharingQuestion, setSharingQuestion] = useState<SharingQuestion | null>(null);
  const turn = useChatTurn({
    conversationId,
    space,
    temporary,
    sharedSpaces: pendingShared,
    onConsent: setSharingQuestion,
    onStart: (c: Conversation) => {
      loadedFor.current = c.id;
      if (c.id !== conversationId) {
        setConversationId(c.id);
        window.history.replaceState(null, "", `/c/${c.id}`);
      }
      setSpace(c.spaceId);
      setPendingShared([]);
      void qc.invalidateQueries({ queryKey: trpc.conversations.list.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.spaces.shareNotices.queryKey() });
    },
    onEnd: refreshLists,
    onRefused: (text) => setDraft(text),
  });
  const { messages, setMessages, streaming } = turn;
  const anchor = useMessageAnchor(messages);

  const status = useQuery({ ...trpc.chat.status.queryOptions(), refetchInterval: streaming ? false : 10_000 });
  const conversation = useQuery({
    ...trpc.conversations.get.queryOptions({ id: conversationId ?? "" }),
    enabled: Boolean(conversationId) && !streaming,
  });

  // Load the stored conversation when it is opened (not while our own reply streams into it).
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads only when the stored data or streaming changes; the ref guards repeats
  useEffect(() => {
    if (!conversation.data || streaming) return;
    // Once shown, the page's own list is the truth (a cached copy may predate an Edit or Regenerate).
    if (loadedFor.current === conversation.data.conversation.id) return;
    loadedFor.current = conversation.data.conversation.id;
    setMessages(conversation.data.messages.map(fromStored));
    setSpace(conversation.data.conversation.spaceId);
  }, [conversation.data, streaming]);

  useEffect(() => {
    setConversationId(initialId);
    setEditingId(null);
    if (!initialId) {
      loadedFor.current = undefined;
      setMessages([]);
    }
    inputRef.current?.focus();
  }, [initialId, setMessages]);

  const undo = useMutation(
    trpc.chat.undoForget.mutationOptions({ onSuccess: (r) => turn.patch(r.message.id, () => fromStored(r.message)) }),
  );

  const newChat = () => {
    turn.stop();
    loadedFor.current = undefined;
    setConversationId(undefined);
    setMessages([]);
    setEditingId(null);
    setTemporary(false);
    setPendingShared([]);
    setDrawer(false);
    router.push(space === "personal" ? "/" : `/?space=${encodeURIComponent(space)}`);
    inputRef.current?.focus();
  };
  const send = () => {
    const text = draft;
    setDraft("");
    scroll.toBottom();
    void turn.run({ text });
  };
  const regenerate = () => {
    setEditingId(null);
    scroll.toBottom();
    void turn.run({ regenerate: true });
  };
  const lastUserId = messages.findLast((m) => m.role === "user" && isStoredId(m.id))?.id;

  useShortcuts({
    stop: streaming ? turn.stop : null,
    newChat,
    focusComposer: () => inputRef.current?.focus(),
  });

  const st = status.data;
  const notFound = conversation.error?.data?.code === "NOT_FOUND" || conversation.error?.data?.code === "BAD_REQUEST";
  const list = (onOpen?: () => void) => (
    <ConversationList
      currentId={conversationId}
      onNew={newChat}
      onOpen={onOpen}
      onDeleted={(id) => id === conversationId && newChat()}
    />
  );

  return (
    // The shell fills the viewport below whatever is above it (header, banners, the first-run
    // checklist) by CSS alone (globals.css, data-chat-shell), so that the page itself never scrolls.
    <div
      className="flex min-h-0 w-full flex-1 border-t border-zinc-200 dark:border-zinc-800"
      data-testid="chat-shell"
      data-chat-shell=""
    >
      <aside className="hidden w-72 shrink-0 flex-col border-r border-zinc-200 p-3 md:flex dark:border-zinc-800">
        {list()}
      </aside>
      {drawer && (
        <ConversationDrawer onClose={() => setDrawer(false)}>{list(() => setDrawer(false))}</ConversationDrawer>
      )}
      <section aria-label="Conversation" className="flex min-w-0 flex-1 flex-col">
        <ChatToolbar
          title={conversationId ? (conversation.data?.conversation.title ?? "Conversation") : "New conversation"}
          space={space}
          spaceLocked={Boolean(conversationId)}
          sharedSpaces={conversationId ? { conversationId } : { pending: pendingShared, onPending: setPendingShared }}
          onSpace={setSpace}
          onOpenDrawer={() => setDrawer(true)}
          health={st?.health}
        >
          <ConversationMemoryBar
            conversation={conversation.data?.conversation}
            isNew={!conversationId}
            temporary={temporary}
            onTemporaryChange={setTemporary}
          />
        </ChatToolbar>
        {sharingQuestion && (
          <SharingConsentDialog
            question={sharingQuestion}
            onAnswered={() => {
              const q = sharingQuestion;
              setSharingQuestion(null);
              void turn.run({ text: q.text });
            }}
            onCancel={() => {
              setDraft(sharingQuestion.text);
              setSharingQuestion(null);
            }}
          />
        )}
        <ChatNotices status={st} notFound={notFound} />

        <div className="relative min-h-0 flex-1">
          <div
            ref={scroll.scrollRef}
            onScroll={scroll.onScroll}
            className="h-full overflow-y-auto overscroll-contain"
            data-testid="message-scroller"
          >
            <ol
              ref={scroll.contentRef}
              className="mx-auto max-w-3xl space-y-4 px-3 py-4"
              aria-label="Messages"
              aria-live="polite"
              data-testid="messages"
            >
              {messages.length === 0 && !notFound && <EmptyChatHint />}
              {messages.map((m, i) => (
                <MessageView
                  key={m.id}
                  m={m}
                  actions={{
                    idle: !streaming,
                    isLast: i === messages.length - 1,
                    space,
                    editing: editingId === m.id,
                    onStartEdit: () => setEditingId(m.id),
                    onCancelEdit: () => (setEditingId(null), inputRef.current?.focus()),
                    onSubmitEdit: (text) => {
                      setEditingId(null);
                      scroll.toBottom();
                      void turn.run({ edit: { messageId: m.id, text } });
                    },
                    onRegenerate: regenerate,
                    onUndo: () => undo.mutate({ messageId: m.id }),
                    onStored: (sm) => turn.patch(sm.id, () => fromStored(sm)),
                    undoing: undo.isPending,
                    anchored: anchor === m.id,
                  }}
                />
              ))}
            </ol>
          </div>
          {scroll.away && messages.length > 0 && <JumpToLatest onClick={scroll.toBottom} />}
        </div>

        <div className="shrink-0 border-t border-zinc-200 bg-zinc-50 pb-[env(safe-area-inset-bottom)] dark:border-zinc-800 dark:bg-zinc-950">
          <div className="mx-auto max-w-3xl">
            <Composer
              value={draft}
              onChange={setDraft}
              onSend={send}
              streaming={streaming}
              onStop={turn.stop}
              onEditLast={() => !streaming && lastUserId && setEditingId(lastUserId)}
              inputRef={inputRef}
              space={space}
            />
          </div>
        </div>
      </section>
    </div>
  );
}
