import type { FormEvent, ReactNode } from "react";

/** Shared markup primitives (same DOM and classes wherever they are used). */

const ALERT =
  "rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200";

/** An error message announced to assistive tech (`role="alert"`). */
export function ErrorAlert({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className={ALERT}>
      {children}
    </p>
  );
}

/** A column header cell. */
export function Th({ className, children }: { className?: string; children?: ReactNode }) {
  return (
    <th scope="col" className={className}>
      {children}
    </th>
  );
}

/** A settings panel: a bordered section labelled by its h2, with an optional intro under the heading. */
export function SettingsSection({
  anchor,
  headingId,
  title,
  testId,
  gap,
  intro,
  children,
}: {
  anchor?: string;
  headingId: string;
  title: string;
  testId: string;
  /** The vertical spacing class between the section's blocks. */
  gap: "space-y-3" | "space-y-4";
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section
      id={anchor}
      aria-labelledby={headingId}
      className={`${gap} rounded border border-zinc-200 p-4 dark:border-zinc-800`}
      data-testid={testId}
    >
      <div>
        <h2 id={headingId} className="text-lg font-semibold">
          {title}
        </h2>
        {intro}
      </div>
      {children}
    </section>
  );
}

/** A settings panel's success line, announced politely. */
export function Notice({ testId, children }: { testId: string; children: ReactNode }) {
  return (
    <div aria-live="polite" className="text-sm text-emerald-700 dark:text-emerald-400" data-testid={testId}>
      {children}
    </div>
  );
}

/** A one-row form: its controls laid out inline, wrapping on narrow screens. */
export function InlineForm({
  label,
  onSubmit,
  children,
}: {
  label: string;
  onSubmit: (e: FormEvent) => void;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} aria-label={label} className="flex flex-wrap items-center gap-2">
      {children}
    </form>
  );
}

/** A visible label at body-text size. */
export function Label({ htmlFor, children }: { htmlFor: string; children: ReactNode }) {
  return (
    <label htmlFor={htmlFor} className="text-sm">
      {children}
    </label>
  );
}

/** A paragraph of secondary (muted) text. */
export function Muted({ children }: { children: ReactNode }) {
  return <p className="text-sm text-zinc-500">{children}</p>;
}

/** A compact settings table: `head` holds the header cells, children the body. */
export function SettingsTable({ label, head, children }: { label: string; head: ReactNode; children: ReactNode }) {
  return (
    <table className="settings-table w-full text-left text-sm" aria-label={label}>
      <thead className="text-xs uppercase tracking-wide text-zinc-500">
        <tr>{head}</tr>
      </thead>
      {children}
    </table>
  );
}

/** A labelled settings field: its label, the control, and a one-line hint under it. */
export function Field(props: { id: string; label: string; hint: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={props.id} className="block text-sm font-medium">
        {props.label}
      </label>
      {props.children}
      <p className="mt-0.5 text-xs text-zinc-500">{props.hint}</p>
    </div>
  );
}

/** A space picker's group of the spaces others share with the reader (nothing when there are none). */
export function SharedSpaceOptions({ spaces }: { spaces: { space: string; name: string; ownerName: string }[] }) {
  if (spaces.length === 0) return null;
  return (
    <optgroup label="Shared with you">
      {spaces.map((s) => (
        <option key={s.space} value={s.space}>
          {s.name} ({s.ownerName}’s)
        </option>
      ))}
    </optgroup>
  );
}
