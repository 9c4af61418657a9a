"use client";

import Link from "next/link";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ErrorAlert, Muted } from "../_ui/ui";
import { useTRPC } from "../_trpc/client";
import { BTN_PRIMARY_MD, INPUT_WIDE } from "../_ui/styles";

/** The signed-in person's own password (access.changeMyPassword); after the change, on to where they were going. */
export function ChangePasswordForm({ next }: { next: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.access.me.queryOptions());
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  // Typed twice: a typo in a password nobody can see would lock its person out.
  const mismatch = repeat !== "" && repeat !== password;
  const change = useMutation(
    trpc.access.changeMyPassword.mutationOptions({ onSuccess: () => window.location.assign(next) }),
  );

  if (me.isPending) return null;
  if (!me.data)
    return (
      <p className="text-sm">
        <Link href="/login" className="underline">
          Sign in
        </Link>{" "}
        first.
      </p>
    );
  if (me.data.id === "owner")
    return (
      <p className="text-sm">
        The owner password is changed in{" "}
        <Link href="/settings" className="underline">
          Settings → Access
        </Link>
        .
      </p>
    );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password !== repeat) return;
    change.mutate({ current, password });
  };
  return (
    <form onSubmit={submit} aria-label="Change your password" className="space-y-3">
      {me.data.mustChangePassword && (
        <Muted>Your password was set by an admin: choose your own before you go on.</Muted>
      )}
      <div className="space-y-1">
        <label htmlFor="password-current" className="block text-sm font-medium">
          Current password
        </label>
        <input
          id="password-current"
          type="password"
          autoComplete="current-password"
          required
          className={INPUT_WIDE}
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
      </div>
      <div className="space-y-1">
        <label htmlFor="password-new" className="block text-sm font-medium">
          New password
        </label>
        <input
          id="password-new"
          type="password"
          autoComplete="new-password"
          required
          className={INPUT_WIDE}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <div className="space-y-1">
        <label htmlFor="password-repeat" className="block text-sm font-medium">
          New password, again
        </label>
        <input
          id="password-repeat"
          type="password"
          autoComplete="new-password"
          required
          aria-invalid={mismatch}
          aria-describedby={mismatch ? "password-mismatch" : undefined}
          className={INPUT_WIDE}
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
        />
        {mismatch && (
          <p id="password-mismatch" className="text-sm text-red-700 dark:text-red-300">
            The two new passwords differ.
          </p>
        )}
      </div>
      {change.error && <ErrorAlert>{change.error.message}</ErrorAlert>}
      <button
        type="submit"
        className={BTN_PRIMARY_MD}
        disabled={change.isPending || !current || !password || password !== repeat}
      >
        {change.isPending ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
