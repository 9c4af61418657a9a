"use client";

import { useCallback, useSyncExternalStore } from "react";

const PREFIX = "memo:dismissed:";
const EVENT = "memo-dismissed";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(EVENT, onChange);
  };
}

// Dismissed in this page's life, for a browser that refuses storage (then it shows again next visit).
const thisPage = new Set<string>();

function read(key: string): boolean {
  if (thisPage.has(key)) return true;
  try {
    return localStorage.getItem(PREFIX + key) === "1";
  } catch {
    return false;
  }
}

/**
 * A notice the person dismissed stays dismissed in this browser (localStorage), across reloads and tabs.
 * Returns whether `key` is dismissed and the function that dismisses it.
 */
export function useDismissed(key: string): [boolean, () => void] {
  const dismissed = useSyncExternalStore(
    subscribe,
    () => read(key),
    () => false,
  );
  const dismiss = useCallback(() => {
    thisPage.add(key);
    try {
      localStorage.setItem(PREFIX + key, "1");
    } catch {
      /* storage refused: hidden for this page only */
    }
    window.dispatchEvent(new Event(EVENT));
  }, [key]);
  return [dismissed, dismiss];
}
