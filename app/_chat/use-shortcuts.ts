"use client";

import { useEffect, useRef } from "react";

export interface Shortcuts {
  /** Esc: stop the reply being written (only while one is). */
  stop: (() => void) | null;
  /** Ctrl/⌘+Shift+O. */
  newChat: () => void;
  /** "/" outside a text field. */
  focusComposer: () => void;
}

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
}

/** The chat page's keyboard shortcuts (listed by /help: server/chat/commands.ts SHORTCUT_HELP). ↑ lives in the composer. */
export function useShortcuts(s: Shortcuts): void {
  const ref = useRef(s);
  ref.current = s;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing) return;
      const { stop, newChat, focusComposer } = ref.current;
      if (e.key === "Escape" && stop) {
        e.preventDefault();
        stop();
      } else if ((e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey && e.key.toLowerCase() === "o") {
        e.preventDefault();
        newChat();
      } else if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target)) {
        e.preventDefault();
        focusComposer();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
