"use client";

import { BTN, BTN_DANGER } from "../_ui/styles";

/**
 * Settings → People: what an admin can do to a person — disable or enable, reset the password (to be changed
 * at next sign-in), remove with or without their memories exported (each removal confirmed first).
 */
export function PersonActions({
  person,
  onPatch,
  onRemove,
}: {
  person: { login: string; disabled: boolean };
  onPatch: (body: Record<string, unknown>, notice: string) => void;
  onRemove: (withExport: boolean) => void;
}) {
  return (
    <>
      <button
        type="button"
        className={BTN}
        onClick={() =>
          onPatch(
            { disabled: !person.disabled },
            person.disabled ? `${person.login} can sign in again.` : `${person.login} is signed out and disabled.`,
          )
        }
      >
        {person.disabled ? "Enable" : "Disable"}
      </button>
      <button
        type="button"
        className={BTN}
        onClick={() => {
          const pw = window.prompt(`A new password for ${person.login} (they change it at next sign-in):`);
          if (pw)
            onPatch(
              { password: pw, mustChangePassword: true },
              `${person.login}'s password is reset; their sessions and tokens are signed out.`,
            );
        }}
      >
        Reset password
      </button>
      <button
        type="button"
        className={BTN_DANGER}
        title={`Remove ${person.login} and download their memories as an export file`}
        onClick={() => {
          if (
            window.confirm(
              `Remove ${person.login} and download their memories? Every memory, conversation, document and token of theirs is deleted for good; their memories are saved as an export file as they are removed. (A person's memory leaves Memo only this way: to keep them in Memo, ask them to export from the Manager.)`,
            )
          )
            onRemove(true);
        }}
      >
        Export and remove
      </button>
      <button
        type="button"
        className={BTN_DANGER}
        onClick={() => {
          if (
            window.confirm(
              `Remove ${person.login}? Every memory, conversation, document and token of theirs is deleted for good, and no copy is kept (use "Export and remove" to keep their memories).`,
            )
          )
            onRemove(false);
        }}
      >
        Remove
      </button>
    </>
  );
}
