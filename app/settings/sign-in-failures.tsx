import { localDateTime } from "../_ui/local-time";

/** One account's failed sign-ins as GET /api/v1/people reports them (server/auth/sign-in-report.ts). */
export interface SignInFailures {
  failures: number;
  knownDeviceFailures: number;
  lastFailureAt: string | null;
  heldUntil: string | null;
  addresses: { address: string; failures: number; lastFailureAt: string; heldUntil: string | null }[];
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "3 failed · last 2026-11-22 09:30 · held until 09:45": the line an admin reads first. */
export function failureSummary(s: SignInFailures): string {
  const total = s.failures + s.knownDeviceFailures;
  if (total === 0) return "none";
  return [
    `${total} failed`,
    `last ${localDateTime(s.lastFailureAt)}`,
    s.heldUntil ? `held until ${localDateTime(s.heldUntil)}` : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * Settings → People, an account's failed sign-ins (admins only: the list is theirs): the summary, and the
 * addresses they came from in a disclosure (keyboard-usable as a native <details>).
 */
export function SignInFailuresCell({
  s,
  who,
  testId = "sign-in-failures",
}: {
  s: SignInFailures;
  who: string;
  testId?: string;
}) {
  return (
    <div data-testid={testId}>
      <span>{failureSummary(s)}</span>
      {s.addresses.length > 0 && (
        <details className="text-xs text-zinc-600 dark:text-zinc-400">
          <summary className="cursor-pointer">
            {plural(s.addresses.length, "address")}
            <span className="sr-only"> {who}&apos;s failed sign-ins came from</span>
          </summary>
          <ul className="ml-3 list-disc">
            {s.addresses.map((a) => (
              <li key={a.address}>
                <span className="font-mono">{a.address}</span>: {a.failures}, last {localDateTime(a.lastFailureAt)}
                {a.heldUntil && <strong> · held until {localDateTime(a.heldUntil)}</strong>}
              </li>
            ))}
          </ul>
        </details>
      )}
      {s.knownDeviceFailures > 0 && (
        <span className="block text-xs text-zinc-500">{s.knownDeviceFailures} from their own browsers</span>
      )}
    </div>
  );
}

/** Below the table: sign-in names nobody has (kept only as hashes, so counted, never shown). */
export function UnknownNamesNote({ s }: { s: SignInFailures & { names: number } }) {
  if (s.failures === 0) return null;
  return (
    <div className="text-sm" data-testid="unknown-name-failures">
      <span className="font-medium">Sign-in names nobody has:</span> {failureSummary(s)} ({plural(s.names, "name")}
      {s.addresses.length > 0 && `, from ${s.addresses.map((a) => a.address).join(", ")}`})
    </div>
  );
}
