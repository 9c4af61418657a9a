"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { BTN_PRIMARY_SM as BTN_PRIMARY, INPUT } from "../_ui/styles";
import { InlineForm, Label, Muted } from "../_ui/ui";

/** Settings → People for anyone but the owner: change your own password (your other sessions are signed out). */
export function MyPasswordForm(props: {
  mustChangePassword: boolean;
  onChanged: (notice: string) => void;
  onError: (e: Error) => void;
}) {
  const { mustChangePassword } = props;
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [mine, setMine] = useState({ current: "", password: "" });
  const changeMine = useMutation(
    trpc.access.changeMyPassword.mutationOptions({
      onSuccess: () => {
        setMine({ current: "", password: "" });
        props.onChanged("Password changed: your other sessions and API tokens are signed out.");
        void qc.invalidateQueries({ queryKey: trpc.access.me.queryKey() });
      },
      onError: (e) => props.onError(new Error(e.message)),
    }),
  );
  const submitMine = (e: FormEvent) => {
    e.preventDefault();
    changeMine.mutate(mine);
  };
  return (
    <div className="space-y-2">
      <h3 className="font-medium">Your password</h3>
      {mustChangePassword && <Muted>Your password was set by an admin: choose your own.</Muted>}
      <InlineForm label="Change your password" onSubmit={submitMine}>
        <Label htmlFor="my-current">Current</Label>
        <input
          id="my-current"
          type="password"
          autoComplete="current-password"
          className={INPUT}
          value={mine.current}
          onChange={(e) => setMine({ ...mine, current: e.target.value })}
        />
        <Label htmlFor="my-new">New</Label>
        <input
          id="my-new"
          type="password"
          autoComplete="new-password"
          className={INPUT}
          value={mine.password}
          onChange={(e) => setMine({ ...mine, password: e.target.value })}
        />
        <button
          type="submit"
          className={BTN_PRIMARY}
          disabled={changeMine.isPending || !mine.current || !mine.password}
        >
          Change
        </button>
      </InlineForm>
    </div>
  );
}
