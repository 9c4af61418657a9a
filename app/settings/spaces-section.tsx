"use client";

import { ErrorAlert, InlineForm, Label, Muted, Notice, SettingsSection, SettingsTable, Th } from "../_ui/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState, type FormEvent } from "react";
import { useTRPC } from "../_trpc/client";
import { SPACE_RE } from "@/server/core/space-name";
import { BTN, BTN_DANGER, BTN_PRIMARY_SM as BTN_PRIMARY, INPUT } from "../_ui/styles";
import { DeleteSpaceForm, RenameSpaceForm } from "./space-row-forms";
import { SharedWithMe, SpaceSharePanel } from "./space-shares";

/** Settings → Spaces: create, rename (everything in it moves), delete (everything in it goes) after typing its name. */
export function SpacesSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.spaces.list.queryOptions());
  const [name, setName] = useState("");
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);
  const [deleting, setDeleting] = useState<{ name: string; confirm: string } | null>(null);
  const [sharing, setSharing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.spaces.list.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.memory.spaces.queryKey() });
  };
  const ok = (msg: string) => {
    setError(null);
    setNotice(msg);
    refresh();
  };
  const onError = (e: { message: string }) => {
    setNotice(null);
    setError(e.message);
  };
  const create = useMutation(
    trpc.spaces.create.mutationOptions({
      onSuccess: (s) => {
        setName("");
        ok(`Created space ${s.id}.`);
      },
      onError,
    }),
  );
  const rename = useMutation(
    trpc.spaces.rename.mutationOptions({
      onSuccess: (r) => {
        setRenaming(null);
        ok(`Renamed ${r.from} to ${r.to}: ${r.moved.memories ?? 0} memories moved.`);
      },
      onError,
    }),
  );
  const del = useMutation(
    trpc.spaces.delete.mutationOptions({
      onSuccess: (r) => {
        setDeleting(null);
        ok(`Deleted space ${r.name} and its ${r.removed.memories ?? 0} memories.`);
      },
      onError,
    }),
  );

  const submitCreate = (e: FormEvent) => {
    e.preventDefault();
    if (SPACE_RE.test(name)) create.mutate({ name });
  };
  const nameValid = name === "" || SPACE_RE.test(name);

  return (
    <SettingsSection
      anchor="spaces"
      headingId="spaces-heading"
      title="Spaces"
      testId="spaces-section"
      gap="space-y-3"
      intro={
        <Muted>
          Each memory and conversation belongs to one space; recall never crosses spaces, except into a space someone
          shared with you that you add to a conversation.
        </Muted>
      }
    >
      <InlineForm label="Create a space" onSubmit={submitCreate}>
        <Label htmlFor="space-new">New space</Label>
        <input
          id="space-new"
          value={name}
          onChange={(e) => setName(e.target.value.trim())}
          placeholder="e.g. work"
          aria-invalid={!nameValid}
          className={`w-48 ${INPUT}`}
        />
        <button type="submit" className={BTN_PRIMARY} disabled={!name || !nameValid || create.isPending}>
          Create
        </button>
        {!nameValid && (
          <span className="text-xs text-red-700 dark:text-red-300">1–64 letters, digits, “-” or “_”.</span>
        )}
      </InlineForm>
      <Notice testId="spaces-notice">{notice}</Notice>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      <div className="overflow-x-auto">
        <SettingsTable
          label="Spaces"
          head={
            <>
              <Th className="py-1 pr-3">Space</Th>
              <Th className="py-1 pr-3 text-right">Memories</Th>
              <Th className="hidden py-1 pr-3 text-right sm:table-cell">Deleted</Th>
              <Th className="hidden py-1 pr-3 text-right sm:table-cell">Chats</Th>
              <Th className="hidden py-1 pr-3 text-right sm:table-cell">Documents</Th>
              <Th className="py-1">
                <span className="sr-only">Actions</span>
              </Th>
            </>
          }
        >
          <tbody>
            {list.data?.map((s) => (
              <Fragment key={s.id}>
                <tr
                  data-testid="space-row"
                  data-space={s.id}
                  className="border-t border-zinc-200 align-top dark:border-zinc-800"
                >
                  <td className="py-2 pr-3">
                    {renaming?.from === s.id ? (
                      <RenameSpaceForm
                        space={s.id}
                        to={renaming.to}
                        onChange={(to) => setRenaming({ from: s.id, to })}
                        onSave={(to) => rename.mutate({ from: s.id, to })}
                        onCancel={() => setRenaming(null)}
                        pending={rename.isPending}
                      />
                    ) : (
                      <span className="break-all font-medium">
                        {s.id}
                        {s.isDefault && (
                          <span className="ml-2 inline-block whitespace-nowrap rounded bg-zinc-200 px-1.5 text-xs font-normal [word-break:normal] dark:bg-zinc-800">
                            default
                          </span>
                        )}
                      </span>
                    )}
                    {deleting?.name === s.id && (
                      <DeleteSpaceForm
                        space={s}
                        confirm={deleting.confirm}
                        onChange={(confirm) => setDeleting({ name: s.id, confirm })}
                        onDelete={(confirm) => del.mutate({ name: s.id, confirm })}
                        onCancel={() => setDeleting(null)}
                        pending={del.isPending}
                      />
                    )}
                  </td>
                  <td className="py-2 pr-3 text-right tabular-nums">{s.memories}</td>
                  <td className="hidden py-2 pr-3 text-right tabular-nums sm:table-cell">{s.deleted}</td>
                  <td className="hidden py-2 pr-3 text-right tabular-nums sm:table-cell">{s.conversations}</td>
                  <td className="hidden py-2 pr-3 text-right tabular-nums sm:table-cell" data-testid="space-documents">
                    {s.documents}
                  </td>
                  <td className="py-2">
                    {sharing !== s.id && (
                      <span className="flex justify-end pb-1">
                        <button
                          type="button"
                          className={BTN}
                          aria-label={`Share ${s.id}`}
                          onClick={() => setSharing(s.id)}
                        >
                          Share
                        </button>
                      </span>
                    )}
                    {!s.isDefault && renaming?.from !== s.id && deleting?.name !== s.id && (
                      <span className="flex flex-wrap justify-end gap-1">
                        <button
                          type="button"
                          className={BTN}
                          aria-label={`Rename ${s.id}`}
                          onClick={() => (setRenaming({ from: s.id, to: s.id }), setDeleting(null))}
                        >
                          Rename
                        </button>
                        <button
                          type="button"
                          className={BTN_DANGER}
                          aria-label={`Delete ${s.id}`}
                          onClick={() => (setDeleting({ name: s.id, confirm: "" }), setRenaming(null))}
                        >
                          Delete
                        </button>
                      </span>
                    )}
                  </td>
                </tr>
                {/* Its own full-width row: inside the name's cell it made the table wider than a phone. */}
                {sharing === s.id && (
                  <tr data-testid="space-share-row">
                    <td colSpan={6} className="pb-2">
                      <SpaceSharePanel space={s.id} onClose={() => setSharing(null)} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </SettingsTable>
      </div>
      <SharedWithMe />
    </SettingsSection>
  );
}
