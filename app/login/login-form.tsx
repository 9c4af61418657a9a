"use client";

import { useState, type FormEvent } from "react";

/** The sign-in form (a sign-in name for people other than the owner, and a password): posts to /api/auth/login, which sets the session cookie, then goes back where the user was. */
export function LoginForm({ next, household = false }: { next: string; household?: boolean }) {
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        // No sign-in name: the owner, as before people existed.
        body: JSON.stringify(login.trim() ? { login: login.trim(), password } : { password }),
      });
      if (res.ok) {
        // A password an admin set is to be changed first (the server refuses everything else until then).
        const ok = (await res.json().catch(() => null)) as { mustChangePassword?: boolean } | null;
        window.location.assign(ok?.mustChangePassword ? `/password?next=${encodeURIComponent(next)}` : next);
        return;
      }
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      setError(body?.error?.message ?? `sign-in failed (HTTP ${res.status})`);
      setPassword("");
    } catch {
      setError("Memo could not be reached");
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} aria-label="Sign in" className="space-y-3">
      <div className="space-y-1">
        <label htmlFor="login-name" className="block text-sm font-medium">
          Sign-in name <span className="font-normal text-zinc-500">(empty for the owner)</span>
        </label>
        <input
          id="login-name"
          type="text"
          autoComplete="username"
          value={login}
          onChange={(e) => setLogin(e.target.value)}
          // With people besides the owner, most who sign in have a name: start there (issue 48).
          autoFocus={household}
          className="w-full rounded border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
        />
      </div>
      <div className="space-y-1">
        <label htmlFor="login-password" className="block text-sm font-medium">
          {household ? "Password" : "Owner password"}{" "}
          {!household && <span className="font-normal text-zinc-500">(or your own, with your sign-in name)</span>}
        </label>
        <input
          id="login-password"
          type="password"
          autoComplete="current-password"
          required
          autoFocus={!household}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className="w-full rounded border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
        />
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={busy || password === ""}
        className="rounded bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900"
      >
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
