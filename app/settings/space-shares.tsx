"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { ErrorAlert, Muted, SettingsTable, Th } from "../_ui/ui";
import { BTN, BTN_DANGER, BTN_PRIMARY_SM as BTN_PRIMARY, INPUT } from "../_ui/styles";

type Mode = "read" | "write";
const MODE_LABEL: Record<Mode, string> = { read: "read-only", write: "read-write" };

function useShares() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const shares = useQuery(trpc.spaces.shares.queryOptions());
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.spaces.shares.queryKey() });
  return { trpc, shares, refresh };
}

/**
 * Settings → Spaces, under one of the person's spaces: who it is shared with and how, and a form to share
 * it with someone else (their sign-in name), read-only or read-write. Only the space's person sees this.
 */
export function SpaceSharePanel({ space, onClose }: { space: string; onClose: () => void }) {
  const { trpc, shares, refresh } = useShares();
  const [person, setPerson] = useState("");
  const [mode, setMode] = useState<Mode>("read");
  const [error, setError] = useState<string | null>(null);
  const onError = (e: { message: string }) => setError(e.message);
  const onSuccess = () => {
    setError(null);
    refresh();
  };
  const share = useMutation(
    trpc.spaces.share.mutationOptions({
      onSuccess: () => {
        setPerson("");
        onSuccess();
      },
      onError,
    }),
  );
  const unshare = useMutation(trpc.spaces.unshare.mutationOptions({ onSuccess, onError }));
  const people = shares.data?.mine.find((s) => s.space === space)?.people ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (person.trim()) share.mutate({ space, person: person.trim(), mode });
  };

  return (
    <div
      className="mt-2 space-y-2 rounded border border-zinc-300 p-2 text-xs dark:border-zinc-700"
      data-testid="space-share-panel"
      aria-label={`Sharing of ${space}`}
      role="group"
    >
      <Muted>
        People you share “{space}” with see its memories only in a conversation that adds it (or when they pick it in
        Debug Search or the Manager); read-write lets them add, edit and forget memories here, each showing who wrote
        it.
      </Muted>
      {people.length > 0 && (
        <ul className="space-y-1" aria-label={`People ${space} is shared with`}>
          {people.map((p) => (
            <li key={p.personId} className="flex flex-wrap items-center gap-2" data-testid="space-share-person">
              <span className="font-medium">{p.name}</span>
              <span className="text-zinc-500">({p.login})</span>
              <label className="sr-only" htmlFor={`share-mode-${space}-${p.personId}`}>
                How {p.name} may use {space}
              </label>
              <select
                id={`share-mode-${space}-${p.personId}`}
                value={p.mode}
                className={INPUT}
                onChange={(e) => share.mutate({ space, person: p.personId, mode: e.target.value as Mode })}
              >
                <option value="read">{MODE_LABEL.read}</option>
                <option value="write">{MODE_LABEL.write}</option>
              </select>
              <button
                type="button"
                className={BTN_DANGER}
                aria-label={`Stop sharing ${space} with ${p.name}`}
                onClick={() => unshare.mutate({ space, person: p.personId })}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} className="flex flex-wrap items-center gap-1" aria-label={`Share ${space}`}>
        <label className="sr-only" htmlFor={`share-person-${space}`}>
          Sign-in name of the person to share {space} with
        </label>
        <input
          id={`share-person-${space}`}
          value={person}
          onChange={(e) => setPerson(e.target.value)}
          placeholder="their sign-in name"
          className={`w-40 ${INPUT}`}
        />
        <label className="sr-only" htmlFor={`share-new-mode-${space}`}>
          Read-only or read-write
        </label>
        <select
          id={`share-new-mode-${space}`}
          value={mode}
          onChange={(e) => setMode(e.target.value as Mode)}
          className={INPUT}
        >
          <option value="read">{MODE_LABEL.read}</option>
          <option value="write">{MODE_LABEL.write}</option>
        </select>
        <button type="submit" className={BTN_PRIMARY} disabled={!person.trim() || share.isPending}>
          Share
        </button>
        <button type="button" className={BTN} onClick={onClose}>
          Done
        </button>
      </form>
      {error && <ErrorAlert>{error}</ErrorAlert>}
    </div>
  );
}

/** Settings → Spaces: the spaces other people share with this person, with whose each is and how. */
export function SharedWithMe() {
  const { shares } = useShares();
  const rows = shares.data?.withMe ?? [];
  if (!rows.length) return null;
  return (
    <div className="overflow-x-auto" data-testid="shared-with-me">
      <SettingsTable
        label="Spaces shared with you"
        head={
          <>
            <Th className="py-1 pr-3">Shared with you</Th>
            <Th className="py-1 pr-3">Whose</Th>
            <Th className="py-1 pr-3">How</Th>
            <Th className="hidden py-1 sm:table-cell">Name it as</Th>
          </>
        }
      >
        <tbody>
          {rows.map((s) => (
            <tr
              key={s.space}
              data-testid="shared-space-row"
              className="border-t border-zinc-200 align-top dark:border-zinc-800"
            >
              <td className="py-2 pr-3 font-medium">
                {s.name}
                <span className="block font-mono text-xs font-normal text-zinc-500 sm:hidden">{s.space}</span>
              </td>
              <td className="py-2 pr-3">{s.ownerName}</td>
              <td className="py-2 pr-3">{MODE_LABEL[s.mode]}</td>
              <td className="hidden py-2 font-mono text-xs sm:table-cell">{s.space}</td>
            </tr>
          ))}
        </tbody>
      </SettingsTable>
    </div>
  );
}
