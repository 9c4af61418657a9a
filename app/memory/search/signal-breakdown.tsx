import type { CandidateSignal } from "@/server/memory/retrieval/signals";
import { signalSpec } from "@/server/memory/retrieval/signals";

const num = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3));

/**
 * Debug Search: every signal the stages recorded for a result (server/memory/retrieval/signals.ts), in the
 * order they were recorded, each by its declared label and meaning. A new signal shows here as declared.
 */
export function SignalBreakdown({ signals }: { signals: CandidateSignal[] | undefined }) {
  if (!signals?.length) return null;
  return (
    <details className="text-xs" data-testid="signals">
      <summary className="cursor-pointer text-zinc-500">signals ({signals.length})</summary>
      <table className="mt-1 w-full table-fixed border-collapse">
        <thead className="text-left text-zinc-500">
          <tr>
            <th className="w-2/5 font-normal">signal</th>
            <th className="w-1/5 font-normal">value</th>
            <th className="w-1/5 font-normal">effect</th>
            <th className="w-1/5 font-normal">stage</th>
          </tr>
        </thead>
        <tbody>
          {signals.map((s, i) => {
            const spec = signalSpec(s.name);
            return (
              <tr key={i} data-testid="signal" data-signal={s.name} title={spec.about}>
                <td className="break-words pr-2">
                  {spec.label}
                  {s.note ? <span className="text-zinc-500"> · {s.note}</span> : null}
                </td>
                <td className="tabular-nums">{num(s.value)}</td>
                <td className="tabular-nums">{s.effect === undefined ? "—" : num(s.effect)}</td>
                <td className="text-zinc-500">{spec.stage}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </details>
  );
}
