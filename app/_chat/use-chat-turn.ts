"use client";

import { useRef, useState } from "react";
import { readSseJson } from "@/server/chat/sse";
import type { TurnEvent } from "@/server/chat/turn";
import type { Conversation, StoredMessage } from "@/server/chat/conversations";
import type { UiMessage } from "./message";
import type { SharingQuestion } from "./privacy-chat";

export const fromStored = (m: StoredMessage): UiMessage => ({ ...m, status: "done" });
let tmp = 0;
const tmpId = (p: string) => `tmp-${p}-${Date.now()}-${++tmp}`;
export const isStoredId = (id: string) => !id.startsWith("tmp-");

/** What to send: a new message, the last one answered again (Regenerate, Retry), or an edited one. */
export type TurnRequest = { text: string } | { regenerate: true } | { edit: { messageId: string; text: string } };

export interface TurnHooks {
  conversationId: string | undefined;
  space: string;
  /** The first event of a turn: the conversation it runs in (created for a new chat). */
  onStart: (conversation: Conversation) => void;
  /** The turn ended (done, error or stopped). */
  onEnd: () => void;
  /** The request was refused before anything was stored: give the text back to the composer. */
  onRefused: (text: string) => void;
  /** Start the new conversation as a temporary chat (privacy-chat.tsx). */
  temporary?: boolean;
  /** Spaces shared with the person that the new conversation also recalls from (shared-spaces.tsx). */
  sharedSpaces?: string[];
  /** A remote provider would get memories and nobody decided yet: nothing was stored; ask, then send again. */
  onConsent?: (q: SharingQuestion) => void;
}

/** The turn streaming now: its id (for POST /api/chat/stop), how much of its reply the page shows, whether Stop was pressed. */
interface LiveTurn {
  id: string;
  shown: number;
  stopping: boolean;
  abort: AbortController;
  /** After Stop: drops the connection if the server's answer does not come. */
  timer?: ReturnType<typeof setTimeout>;
}

/** After Stop, how long to wait for the server's `stopped` event before dropping the connection instead. */
const STOP_GRACE_MS = 8_000;

/**
 * The messages on screen and the streaming turn: POST /api/chat, its server-sent events applied to the
 * list as they come. Regenerate and Edit remove what they replace on screen as the server does.
 *
 * Stop (server/chat/turn-control.ts): the page stops showing new text at once and tells the server how
 * much it showed; the server ends the provider request, stores exactly that much, and its `stopped`
 * event replaces the reply on screen with what was stored: what the page shows is what is kept.
 */
export function useChatTurn(h: TurnHooks) {
  const [messages, setMessages] = useState<UiMessage[]>([]);
  const [streaming, setStreaming] = useState(false);
  const live = useRef<LiveTurn | null>(null);
  const hooks = useRef(h);
  hooks.current = h;

  const patch = (id: string, f: (m: UiMessage) => UiMessage) =>
    setMessages((ms) => ms.map((m) => (m.id === id ? f(m) : m)));

  async function run(req: TurnRequest): Promise<void> {
    if (streaming) return;
    const { conversationId, space } = hooks.current;
    let replyId = tmpId("a");
    let userId: string | null = null;
    let sentText: string;
    const pendingReply: UiMessage = {
      id: replyId,
      role: "assistant",
      content: "",
      recalled: null,
      command: null,
      status: "streaming",
    };
    // The browser's time zone: "yesterday", "the day after the concert" and the dates the model sees are days where the person is.
    const turnId = crypto.randomUUID();
    const body: Record<string, unknown> = {
      conversationId,
      tzOffsetMinutes: -new Date().getTimezoneOffset(),
      turnId,
    };
    if ("regenerate" in req) {
      const lastUser = messages.findLastIndex((m) => m.role === "user");
      if (lastUser < 0) return;
      sentText = messages[lastUser]!.content;
      body.regenerate = true;
      body.message = sentText;
      setMessages((ms) => [...ms.slice(0, lastUser + 1), pendingReply]);
    } else {
      sentText = "edit" in req ? req.edit.text : req.text;
      if (!sentText.trim()) return;
      userId = tmpId("u");
      const user: UiMessage = {
        id: userId,
        role: "user",
        content: sentText,
        recalled: null,
        command: null,
        status: "done",
      };
      body.message = sentText;
      if ("edit" in req) {
        body.editMessageId = req.edit.messageId;
        setMessages((ms) => {
          const at = ms.findIndex((m) => m.id === req.edit.messageId);
          return [...(at < 0 ? ms : ms.slice(0, at)), user, pendingReply];
        });
      } else {
        if (!conversationId) body.space = space;
        if (!conversationId && hooks.current.temporary) body.temporary = true;
        if (!conversationId && hooks.current.sharedSpaces?.length) body.sharedSpaces = hooks.current.sharedSpaces;
        setMessages((ms) => [...ms, user, pendingReply]);
      }
    }
    setStreaming(true);
    const abort = new AbortController();
    const turn: LiveTurn = { id: turnId, shown: 0, stopping: false, abort };
    live.current = turn;
    let finished = false;
    const fail = (message: string) => patch(replyId, (m) => ({ ...m, status: "error", error: message }));
    try {
      const res = await fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      if (!res.ok || !res.body) {
        const b = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        fail(b?.error?.message ?? `The chat request failed (HTTP ${res.status}).`);
        if (userId && !("regenerate" in req)) hooks.current.onRefused(sentText);
        finished = true;
        return;
      }
      for await (const ev of readSseJson<TurnEvent>(res.body)) {
        switch (ev.type) {
          case "start":
            hooks.current.onStart(ev.conversation);
            if (userId) {
              const stored = fromStored(ev.userMessage);
              patch(userId, () => stored);
              userId = stored.id;
            }
            break;
          case "recall":
            patch(replyId, (m) => ({ ...m, recalled: ev.memories, recallError: ev.error }));
            break;
          case "provider":
            patch(replyId, (m) => ({ ...m, provider: ev.label }));
            break;
          case "sent":
            patch(replyId, (m) => ({ ...m, sent: ev.sent }));
            break;
          case "consent":
            setMessages((ms) => ms.filter((m) => m.id !== userId && m.id !== replyId));
            hooks.current.onConsent?.({ endpoint: ev.endpoint, memories: ev.memories, text: sentText });
            finished = true;
            break;
          case "delta":
            if (turn.stopping) break; // Stop was pressed: the page shows no more than it did then
            turn.shown += ev.text.length;
            patch(replyId, (m) => ({ ...m, content: m.content + ev.text }));
            break;
          case "command":
          case "stopped": // the reply as stored: exactly what was shown, marked stopped
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
              patch(replyId, (m) => ({
                ...fromStored(stored),
                status: "error",
                error: ev.message,
                recallError: m.recallError,
              }));
              replyId = stored.id;
            } else patch(replyId, (m) => ({ ...m, status: "error", error: ev.message, errorKind: ev.kind }));
            finished = true;
            break;
        }
      }
      if (!finished) fail("The connection closed before the reply finished.");
    } catch (e) {
      if (abort.signal.aborted)
        patch(replyId, (m) => ({ ...m, status: m.content ? "done" : "error", error: m.content ? null : "Stopped." }));
      else fail(`Could not reach Memo: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      clearTimeout(turn.timer);
      if (live.current === turn) live.current = null;
      setStreaming(false);
      hooks.current.onEnd();
    }
  }

  return {
    messages,
    setMessages,
    streaming,
    patch,
    run,
    stop,
  };

  /** Stop the streaming reply: at once on the page, then authoritatively at the server (see above). */
  function stop(): void {
    const turn = live.current;
    if (!turn || turn.stopping) return;
    turn.stopping = true;
    const drop = () => turn.abort.abort();
    turn.timer = setTimeout(drop, STOP_GRACE_MS);
    void fetch("/api/chat/stop", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ turnId: turn.id, shown: turn.shown }),
    })
      .then((r) => r.ok || drop())
      .catch(drop);
  }
}
