"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** How close to the end still counts as "at the bottom" (px). */
const SLACK = 32;

/**
 * Keep a scrolling message list at its end while the user is there (a streamed reply grows, Markdown
 * re-lays out), and leave it alone once they scrolled up; `away` says when to offer "Jump to latest".
 *
 * Scroll events arrive a frame late, so a delta rendered in between could snap the list back down before
 * the scroll up is seen. Hence the position this hook last scrolled to is remembered: being above it
 * means the user moved, whatever the scroll events said so far.
 */
export function useStickToBottom() {
  const scrollRef = useRef<HTMLDivElement | null>(null);
  const contentRef = useRef<HTMLOListElement | null>(null);
  const atBottom = useRef(true);
  const lastAuto = useRef(0);
  const [away, setAway] = useState(false);

  const toBottom = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    lastAuto.current = el.scrollTop;
    atBottom.current = true;
    setAway(false);
  }, []);

  /** Follow the end unless the user left it. */
  const follow = useCallback(() => {
    const el = scrollRef.current;
    if (!el || !atBottom.current) return;
    // Above where we last scrolled to, and not just clamped at the end of a list that got shorter.
    if (el.scrollTop < lastAuto.current - 2 && el.scrollHeight - el.scrollTop - el.clientHeight > SLACK) {
      atBottom.current = false;
      setAway(true);
      return;
    }
    toBottom();
  }, [toBottom]);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const at = el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK;
    if (at) lastAuto.current = el.scrollTop;
    atBottom.current = at;
    setAway(!at);
  }, []);

  // After every render (a delta arrived).
  useLayoutEffect(() => follow());

  // Growth that is not a render of ours (fonts, code highlighting, a resized window).
  useEffect(() => {
    const content = contentRef.current;
    const scroller = scrollRef.current;
    if (!content || !scroller || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => follow());
    ro.observe(content);
    ro.observe(scroller);
    return () => ro.disconnect();
  }, [follow]);

  return { scrollRef, contentRef, onScroll, away, toBottom };
}
