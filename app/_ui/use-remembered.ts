"use client";

import { useCallback, useSyncExternalStore } from "react";

const PREFIX = "memo:";
const EVENT = "memo-remembered";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(EVENT, onChange);
  };
}

// Set in this page's life, for a browser that refuses storage (then it is forgotten next visit).
const thisPage = new Set<string>();

function read(key: string): boolean {
  if (thisPage.has(key)) return true;
  try {
    return localStorage.getItem(PREFIX + key) === "1";
  } catch {
    return false;
  }
}

/** A yes/no this browser remembers (localStorage), across reloads and tabs; false until set. */
export function useRememberedFlag(key: string): [boolean, (on: boolean) => void] {
  const value = useSyncExternalStore(
    subscribe,
    () => read(key),
    () => false,
  );
  const set = useCallback(
    (on: boolean) => {
      if (on) thisPage.add(key);
      else thisPage.delete(key);
      try {
        if (on) localStorage.setItem(PREFIX + key, "1");
        else localStorage.removeItem(PREFIX + key);
      } catch {
        /* storage refused: remembered for this page only */
      }
      window.dispatchEvent(new Event(EVENT));
    },
    [key],
  );
  return [value, set];
}

/**
 * A notice the person dismissed stays dismissed in this browser (localStorage), across reloads and tabs.
 * Returns whether `key` is dismissed and the function that dismisses it.
 */
export function useDismissed(key: string): [boolean, () => void] {
  const [dismissed, set] = useRememberedFlag(`dismissed:${key}`);
  return [dismissed, useCallback(() => set(true), [set])];
}
