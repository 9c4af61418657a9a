"use client";

import { useState } from "react";
import { TAP_FREQUENT } from "../_ui/styles";

/** Put text on the clipboard; the old execCommand path where the Clipboard API is refused (plain http on a LAN address). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand("copy");
    ta.remove();
    return ok;
  }
}

/** A message's action (Copy, Edit, Regenerate, Retry): on a phone a 44 px target. */
export const ACTION_BTN = `${TAP_FREQUENT} rounded px-1.5 py-0.5 text-xs font-medium text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 disabled:opacity-50 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100`;

/** A copy button whose accessible name stays `label`; what happened is announced beside it. */
export function CopyButton({
  label,
  text,
  className = ACTION_BTN,
}: {
  label: string;
  text: () => string;
  className?: string;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <button
      type="button"
      aria-label={label}
      // Positioned, so its visually hidden status text stays inside the transcript's scroll box.
      className={`relative ${className}`}
      onClick={async () => {
        setState((await copyText(text())) ? "copied" : "failed");
        setTimeout(() => setState("idle"), 1500);
      }}
    >
      <span aria-hidden="true">{state === "copied" ? "Copied ✓" : state === "failed" ? "Copy failed" : label}</span>
      <span className="sr-only" role="status">
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy" : ""}
      </span>
    </button>
  );
}
