"use client";

import { useEffect, useRef, useState } from "react";

/**
 * A link to one message of a conversation (/c/<id>#<message id>, from "What Memo knows"): once the stored
 * messages are shown, that message is scrolled into the middle of the list, focused (a keyboard or screen
 * reader user lands on it) and marked until another is linked. The list's stick-to-bottom sees the list
 * scrolled up and leaves it there. Returns the linked message's id, or null.
 */
export function useMessageAnchor(messages: { id: string }[]): string | null {
  const [anchor, setAnchor] = useState<string | null>(null);
  const shown = useRef<string | null>(null);
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (!id || shown.current === id || !messages.some((m) => m.id === id)) return;
    shown.current = id;
    setAnchor(id);
  }, [messages]);
  useEffect(() => {
    if (!anchor) return;
    const el = document.getElementById(anchor);
    el?.scrollIntoView({ block: "center" });
    el?.focus({ preventScroll: true });
  }, [anchor]);
  return anchor;
}
