"use client";

import { useCallback, useEffect, useRef, useState } from "react";

const PREFIX = "memo:draft:";

function read(key: string): string | null {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    if (value) localStorage.setItem(PREFIX + key, value);
    else localStorage.removeItem(PREFIX + key);
  } catch {
    /* storage full or disabled: the draft still lives in the page */
  }
}

/**
 * The composer's text, kept per conversation in localStorage so that a reload, a crash or switching
 * conversations loses nothing. `key` is the conversation id, or "new:<space>" before the first message;
 * text typed while a new chat gets its id moves with it.
 */
export function useDraft(key: string): [string, (v: string) => void] {
  const [value, setValue] = useState("");
  const current = useRef({ key, value });
  useEffect(() => {
    const prev = current.current;
    const stored = read(key);
    if (stored === null && prev.key !== key && prev.key.startsWith("new:") && prev.value) {
      write(key, prev.value);
      write(prev.key, "");
      current.current = { key, value: prev.value };
      return;
    }
    current.current = { key, value: stored ?? "" };
    setValue(stored ?? "");
  }, [key]);
  const set = useCallback(
    (v: string) => {
      current.current = { key, value: v };
      setValue(v);
      write(key, v);
    },
    [key],
  );
  return [value, set];
}
