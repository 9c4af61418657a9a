"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { Muted } from "../_ui/ui";
import { BTN_PRIMARY_SM as BTN_PRIMARY, INPUT } from "../_ui/styles";

const EMPTY = { current: "", password: "", confirm: "", revokeOthers: true };
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * Settings → Access: set or change the owner password (the current one is asked for when one is set),
 * optionally signing out the other sessions and revoking the API tokens.
 */
export function OwnerPasswordForm(props: {
  passwordSet: boolean;
  onSaved: (notice: string) => void;
  onError: (e: { message: string }) => void;
}) {
  const { passwordSet, onError } = props;
  const trpc = useTRPC();
  const [pw, setPw] = useState(EMPTY);
  const setPassword = useMutation(
    trpc.access.setPassword.mutationOptions({
      onSuccess: (r) => {
        setPw(EMPTY);
        props.onSaved(
          `Password saved.${r.sessionsRevoked ? ` ${plural(r.sessionsRevoked, "other session")} signed out.` : ""}${r.tokensRevoked ? ` ${plural(r.tokensRevoked, "API token")} revoked.` : ""}`,
        );
      },
      onError,
    }),
  );
  const submitPassword = (e: FormEvent) => {
    e.preventDefault();
    if (pw.password !== pw.confirm) return onError({ message: "the two new passwords differ" });
    setPassword.mutate({
      password: pw.password,
      revokeOthers: pw.revokeOthers,
      ...(passwordSet ? { current: pw.current } : {}),
    });
  };

  return (
    <form
      onSubmit={submitPassword}
      aria-label={passwordSet ? "Change the owner password" : "Set the owner password"}
      className="space-y-2"
    >
      <h3 className="font-medium">{passwordSet ? "Change the owner password" : "Set the owner password"}</h3>
      {!passwordSet && <Muted>Needed before Memo will listen on a network address (MEMO_HOST=0.0.0.0).</Muted>}
      <div className="flex flex-wrap items-center gap-2">
        {passwordSet && (
          <>
            <label htmlFor="pw-current" className="text-sm">
              Current password
            </label>
            <input
              id="pw-current"
              type="password"
              autoComplete="current-password"
              value={pw.current}
              onChange={(e) => setPw({ ...pw, current: e.target.value })}
              className={`w-48 ${INPUT}`}
            />
          </>
        )}
        <label htmlFor="pw-new" className="text-sm">
          New password
        </label>
        <input
          id="pw-new"
          type="password"
          autoComplete="new-password"
          minLength={8}
          value={pw.password}
          onChange={(e) => setPw({ ...pw, password: e.target.value })}
          className={`w-48 ${INPUT}`}
        />
        <label htmlFor="pw-confirm" className="text-sm">
          Repeat
        </label>
        <input
          id="pw-confirm"
          type="password"
          autoComplete="new-password"
          value={pw.confirm}
          onChange={(e) => setPw({ ...pw, confirm: e.target.value })}
          className={`w-48 ${INPUT}`}
        />
        <label className="flex items-center gap-1 text-sm">
          <input
            type="checkbox"
            checked={pw.revokeOthers}
            onChange={(e) => setPw({ ...pw, revokeOthers: e.target.checked })}
          />
          Sign out other sessions and revoke all API tokens
        </label>
        <button
          type="submit"
          className={BTN_PRIMARY}
          disabled={!pw.password || setPassword.isPending || (passwordSet && !pw.current)}
        >
          Save password
        </button>
      </div>
    </form>
  );
}
