"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** How close to the end still counts as "at the bottom" (px). */
const SLACK = 32;

/**
 * Keep a scrolling message list at its end while the user is there (a streamed reply grows, Markdown
 * re-lays out), and leave it alone once they scrolled up; `away` says when to offer "Jump to latest".
 */
export function useStickToBottom() {
  const scrollRef = useRef<HTMLDivElement | null>(null);
  const contentRef = useRef<HTMLOListElement | null>(null);
  const atBottom = useRef(true);
  const [away, setAway] = useState(false);

  const toBottom = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    atBottom.current = true;
    setAway(false);
  }, []);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const at = el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK;
    atBottom.current = at;
    setAway(!at);
  }, []);

  // After every render (a delta arrived): follow the end if the user is there.
  useLayoutEffect(() => {
    if (atBottom.current) toBottom();
  });

  // Growth that is not a render of ours (images, fonts, code highlighting, a resized window).
  useEffect(() => {
    const content = contentRef.current;
    const scroller = scrollRef.current;
    if (!content || !scroller || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (atBottom.current) toBottom();
    });
    ro.observe(content);
    ro.observe(scroller);
    return () => ro.disconnect();
  }, [toBottom]);

  return { scrollRef, contentRef, onScroll, away, toBottom };
}
