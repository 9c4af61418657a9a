"use client";

import { ErrorAlert, InlineForm, Label, Muted, Notice, SettingsSection, SettingsTable, Th } from "../_ui/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { localDateTime } from "../_ui/local-time";
import { BTN, BTN_DANGER, BTN_PRIMARY_SM as BTN_PRIMARY, INPUT } from "../_ui/styles";
import { OwnerPasswordForm } from "./owner-password-form";

function when(iso: string | null): string {
  return localDateTime(iso, "never");
}

/** Settings → Access: how Memo is reachable, the owner password, API tokens for programs, sign out everywhere. */
export function AccessSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const status = useQuery(trpc.access.status.queryOptions());
  const tokens = useQuery(trpc.access.tokens.queryOptions());
  // The owner password and signing everyone out are the owner's (and an admin's) business, not a member's.
  const me = useQuery(trpc.access.me.queryOptions());
  const isOwner = (me.data?.id ?? "owner") === "owner";
  const isAdmin = (me.data?.role ?? "admin") === "admin";
  const [tokenName, setTokenName] = useState("");
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const onError = (e: { message: string }) => {
    setNotice(null);
    setError(e.message);
  };
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.access.status.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.access.tokens.queryKey() });
  };
  const create = useMutation(
    trpc.access.createToken.mutationOptions({
      onSuccess: (t) => {
        setTokenName("");
        setCreated({ name: t.name, token: t.token });
        setError(null);
        setNotice(null);
        refresh();
      },
      onError,
    }),
  );
  const revoke = useMutation(
    trpc.access.revokeToken.mutationOptions({
      onSuccess: () => {
        setError(null);
        setNotice("Token revoked: programs using it are refused from now on.");
        refresh();
      },
      onError,
    }),
  );
  const signOutAll = useMutation(
    trpc.access.signOutEverywhere.mutationOptions({
      onSuccess: () => window.location.assign("/login"),
      onError,
    }),
  );

  const s = status.data;
  const submitToken = (e: FormEvent) => {
    e.preventDefault();
    if (tokenName.trim()) create.mutate({ name: tokenName.trim() });
  };

  return (
    <SettingsSection
      anchor="access"
      headingId="access-heading"
      title="Access"
      testId="access-section"
      gap="space-y-4"
      intro={
        s && (
          <p className="text-sm text-zinc-500" data-testid="access-mode">
            {s.loginRequired
              ? `Memo listens on ${s.host}: every page and API needs a sign-in or an API token.`
              : `Memo listens on loopback (${s.host}): only this machine can reach it, and no sign-in is needed.`}{" "}
            Owner password: {s.passwordSet ? "set" : "not set"}.
          </p>
        )
      }
    >
      <Notice testId="access-notice">{notice}</Notice>
      {error && <ErrorAlert>{error}</ErrorAlert>}

      <div className="space-y-2">
        <h3 className="font-medium">API tokens</h3>
        <Muted>
          For programs (scripts, OpenAI clients, MCP): send <code>Authorization: Bearer &lt;token&gt;</code>. Only a
          hash is stored; the token is shown once.
        </Muted>
        <InlineForm label="Create an API token" onSubmit={submitToken}>
          <Label htmlFor="token-name">Token name</Label>
          <input
            id="token-name"
            value={tokenName}
            onChange={(e) => setTokenName(e.target.value)}
            placeholder="e.g. laptop scripts"
            maxLength={100}
            className={`w-56 ${INPUT}`}
          />
          <button type="submit" className={BTN_PRIMARY} disabled={!tokenName.trim() || create.isPending}>
            Create token
          </button>
        </InlineForm>
        {created && (
          <div
            className="space-y-1 rounded border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-800 dark:bg-amber-950"
            data-testid="new-token"
          >
            <p>Token “{created.name}” — copy it now, it will not be shown again:</p>
            <code
              className="block break-all rounded bg-white px-2 py-1 font-mono text-xs dark:bg-zinc-900"
              data-testid="new-token-value"
            >
              {created.token}
            </code>
            <button type="button" className={BTN} onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        )}
        <SettingsTable
          label="API tokens"
          head={
            <>
              <Th className="py-1 pr-3">Name</Th>
              <Th className="py-1 pr-3">Token</Th>
              <Th className="hidden py-1 pr-3 sm:table-cell">Created</Th>
              <Th className="hidden py-1 pr-3 sm:table-cell">Last used</Th>
              <Th className="py-1">
                <span className="sr-only">Actions</span>
              </Th>
            </>
          }
        >
          <tbody>
            {tokens.data?.length === 0 && (
              <tr>
                <td colSpan={5} className="py-2 text-zinc-500">
                  No tokens yet.
                </td>
              </tr>
            )}
            {tokens.data?.map((t) => (
              <tr
                key={t.id}
                data-testid="token-row"
                data-token-name={t.name}
                className="border-t border-zinc-200 dark:border-zinc-800"
              >
                <td className="py-2 pr-3 break-all">{t.name}</td>
                <td className="py-2 pr-3 font-mono text-xs">{t.prefix}…</td>
                <td className="hidden py-2 pr-3 sm:table-cell">{when(t.createdAt)}</td>
                <td className="hidden py-2 pr-3 sm:table-cell">{when(t.lastUsedAt)}</td>
                <td className="py-2 text-right">
                  {t.revokedAt ? (
                    <span className="text-xs text-zinc-500">revoked {when(t.revokedAt)}</span>
                  ) : (
                    <button
                      type="button"
                      className={BTN_DANGER}
                      aria-label={`Revoke ${t.name}`}
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate({ id: t.id })}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </SettingsTable>
      </div>

      {s && isOwner && (s.passwordSet || !s.loginRequired) && (
        <OwnerPasswordForm
          passwordSet={s.passwordSet}
          onSaved={(message) => {
            setError(null);
            setNotice(message);
            refresh();
          }}
          onError={onError}
        />
      )}

      {s?.loginRequired && isAdmin && (
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-sm text-zinc-500">
            {s.sessions} signed-in browser session{s.sessions === 1 ? "" : "s"}.
          </span>
          <button
            type="button"
            className={BTN_DANGER}
            disabled={signOutAll.isPending}
            onClick={() => signOutAll.mutate()}
          >
            Sign out everywhere
          </button>
        </div>
      )}
    </SettingsSection>
  );
}
