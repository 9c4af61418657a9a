"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ErrorAlert, InlineForm, Label, Muted, Notice, SettingsSection, SettingsTable, Th } from "../_ui/ui";
import { useTRPC } from "../_trpc/client";
import { BTN_PRIMARY_SM as BTN_PRIMARY, INPUT } from "../_ui/styles";
import { MyPasswordForm } from "./my-password-form";
import { PersonActions } from "./person-actions";
import { SignInFailuresCell, UnknownNamesNote, type SignInFailures } from "./sign-in-failures";

interface PersonRow {
  id: string;
  name: string;
  login: string;
  role: "admin" | "member";
  disabled: boolean;
  mustChangePassword: boolean;
  createdAt: string;
  signIn: SignInFailures;
}

/** The people REST API (server/http/people-handlers.ts): JSON in, JSON out, its error message thrown. */
async function api<T>(url: string, method = "GET", body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!res.ok) throw new Error(data?.error?.message ?? `HTTP ${res.status}`);
  return data as T;
}

const personStatus = (p: { disabled: boolean; mustChangePassword: boolean }) =>
  p.disabled ? "disabled" : p.mustChangePassword ? "must change password" : "active";

/** Save text as a file the browser downloads. */
function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Settings → People (admins): the household's people — add one (initial password, optionally to be changed
 * at first sign-in), disable or enable (their sessions and tokens stop at once), reset a password, remove
 * (everything of theirs is deleted; "Export and remove" saves their memories as they go, the only way another
 * person's memory leaves Memo, issue 58), and see each account's failed sign-ins (issue 43). A member sees only
 * their own password form.
 */
export function PeopleSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.access.me.queryOptions());
  const admin = me.data?.role === "admin";
  // Adding a person needs the owner password (sign-in turns on): said before Add, not after a 409.
  const access = useQuery({ ...trpc.access.status.queryOptions(), enabled: admin });
  const needsPassword = access.data?.passwordSet === false;
  const people = useQuery({
    queryKey: ["people"],
    queryFn: () => api<{ people: PersonRow[]; unknownNames: SignInFailures & { names: number } }>("/api/v1/people"),
    enabled: admin,
  });
  const [form, setForm] = useState({ name: "", login: "", password: "", role: "member", mustChange: true });
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const done = (msg: string) => {
    setError(null);
    setNotice(msg);
    void qc.invalidateQueries({ queryKey: ["people"] });
    // Access says whether sign-in is needed: the first person turns it on.
    void qc.invalidateQueries({ queryKey: trpc.access.pathKey() });
  };
  const failed = (e: Error) => {
    setNotice(null);
    setError(e.message);
  };
  const add = useMutation({
    mutationFn: () =>
      api<{ id: string; login: string }>("/api/v1/people", "POST", {
        name: form.name,
        login: form.login,
        password: form.password,
        role: form.role,
        mustChangePassword: form.mustChange,
      }),
    onSuccess: (p) => {
      setForm({ name: "", login: "", password: "", role: "member", mustChange: true });
      done(`Added ${p.login}: they sign in at /login with that name and password.`);
    },
    onError: failed,
  });
  const patch = useMutation({
    mutationFn: (v: { id: string; body: Record<string, unknown>; msg: string }) =>
      api(`/api/v1/people/${encodeURIComponent(v.id)}`, "PATCH", v.body).then(() => v.msg),
    onSuccess: done,
    onError: failed,
  });
  // Another person's memory leaves Memo only with their removal (issue 58): "Export and remove" gets their
  // export file in the removal's answer and saves it here; there is no export of a person who stays.
  const remove = useMutation({
    mutationFn: ({ p, withExport }: { p: PersonRow; withExport: boolean }) =>
      api<{ backups: string[]; export?: { fileName: string; file: unknown } }>(
        `/api/v1/people/${encodeURIComponent(p.id)}${withExport ? "?export=1" : ""}`,
        "DELETE",
      ).then((r) => {
        if (r.export) saveFile(r.export.fileName, JSON.stringify(r.export.file, null, 1));
        return (
          `Removed ${p.login} and all their data.` +
          (r.export ? ` Their memories were saved as ${r.export.fileName}.` : "") +
          (r.backups.length
            ? ` ${r.backups.length} backup${r.backups.length === 1 ? "" : "s"} made before (data/backups) still hold it: delete them to remove it there too.`
            : "")
        );
      }),
    onSuccess: done,
    onError: failed,
  });
  if (!me.data) return null;
  const isOwner = me.data.id === "owner";
  if (!admin && isOwner) return null;

  const submitAdd = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };

  return (
    <SettingsSection
      anchor="people"
      headingId="people-heading"
      title="People"
      testId="people-section"
      gap="space-y-4"
      intro={
        <Muted>
          Each person has their own memory, conversations, documents, API tokens and personal settings. Chat providers
          and their keys, local models, jobs and access are the household&apos;s, managed by admins.
          {admin && " Adding the first person turns sign-in on, on this machine too: sign in with the owner password."}
          {admin &&
            " An admin manages people, not their memory: a person's memories leave Memo only with their removal (Export and remove), and the owner's never."}
        </Muted>
      }
    >
      <Notice testId="people-notice">{notice}</Notice>
      {error && <ErrorAlert>{error}</ErrorAlert>}

      {!isOwner && <MyPasswordForm mustChangePassword={me.data.mustChangePassword} onChanged={done} onError={failed} />}

      {admin && (
        <>
          {needsPassword && (
            <p className="text-sm text-amber-800 dark:text-amber-300" data-testid="people-needs-password">
              Set the owner password first (Access, below): adding a person turns sign-in on, on this machine too.
            </p>
          )}
          <InlineForm label="Add a person" onSubmit={submitAdd}>
            <Label htmlFor="person-name">Name</Label>
            <input
              id="person-name"
              className={INPUT}
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
            <Label htmlFor="person-login">Sign-in name</Label>
            <input
              id="person-login"
              className={INPUT}
              autoComplete="off"
              value={form.login}
              onChange={(e) => setForm({ ...form, login: e.target.value })}
            />
            <Label htmlFor="person-password">Initial password</Label>
            <input
              id="person-password"
              type="password"
              autoComplete="new-password"
              className={INPUT}
              value={form.password}
              onChange={(e) => setForm({ ...form, password: e.target.value })}
            />
            <Label htmlFor="person-role">Role</Label>
            <select
              id="person-role"
              className={INPUT}
              value={form.role}
              onChange={(e) => setForm({ ...form, role: e.target.value })}
            >
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
            <label className="flex items-center gap-1 text-sm">
              <input
                type="checkbox"
                checked={form.mustChange}
                onChange={(e) => setForm({ ...form, mustChange: e.target.checked })}
              />
              to be changed at first sign-in
            </label>
            <button
              type="submit"
              className={BTN_PRIMARY}
              disabled={add.isPending || needsPassword || !form.name.trim() || !form.login.trim() || !form.password}
            >
              Add
            </button>
          </InlineForm>

          <SettingsTable
            label="People"
            head={
              <>
                <Th className="py-1 pr-3">Name</Th>
                <Th className="hidden py-1 pr-3 sm:table-cell">Sign-in name</Th>
                <Th className="hidden py-1 pr-3 sm:table-cell">Role</Th>
                <Th className="hidden py-1 pr-3 sm:table-cell">Status</Th>
                <Th className="hidden py-1 pr-3 sm:table-cell">Failed sign-ins</Th>
                <Th className="py-1">
                  <span className="sr-only">Actions</span>
                </Th>
              </>
            }
          >
            <tbody>
              {(people.data?.people ?? []).map((p) => (
                <tr key={p.id} className="border-t border-zinc-200 dark:border-zinc-800">
                  <td className="py-1 pr-3">
                    {p.name}
                    {/* A phone has no room for four columns: the same facts under the name. */}
                    <span className="block text-xs text-zinc-500 sm:hidden">
                      {p.login} · {p.role} · {personStatus(p)}
                    </span>
                    {p.signIn.failures + p.signIn.knownDeviceFailures > 0 && (
                      <div className="text-xs sm:hidden">
                        <SignInFailuresCell s={p.signIn} who={p.login} testId="sign-in-failures-narrow" />
                      </div>
                    )}
                  </td>
                  <td className="hidden py-1 pr-3 sm:table-cell">{p.login}</td>
                  <td className="hidden py-1 pr-3 sm:table-cell">{p.role}</td>
                  <td className="hidden py-1 pr-3 sm:table-cell">{personStatus(p)}</td>
                  <td className="hidden py-1 pr-3 sm:table-cell">
                    <SignInFailuresCell s={p.signIn} who={p.login} />
                  </td>
                  <td className="flex flex-wrap gap-1 py-1">
                    {p.id !== "owner" && (
                      <PersonActions
                        person={p}
                        onPatch={(body, msg) => patch.mutate({ id: p.id, body, msg })}
                        onRemove={(withExport) => remove.mutate({ p, withExport })}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </SettingsTable>
          {people.data && <UnknownNamesNote s={people.data.unknownNames} />}
        </>
      )}
    </SettingsSection>
  );
}
