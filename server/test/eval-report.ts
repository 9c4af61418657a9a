/**
 * What an eval file (`*.eval.ts`, run by `npm run eval:*` through scripts/eval.ts) measured, for the JSON report:
 * each measured run appends one line — its figures and the bounds they are checked against — to the file named
 * by MEMO_EVAL_REPORT (scripts/eval.ts sets it; a file run on its own without it writes nothing). The bounds are
 * checked by the eval file's own assertions; `checks` here says per bound whether the figure met it.
 */
import fs from "node:fs";

export interface EvalRecord {
  run: string;
  figures: Record<string, number | string | string[] | unknown>;
  /** figure → the lowest value it may have (its floor). */
  atLeast?: Record<string, number>;
  /** figure → the highest value it may have (a list figure: its length). */
  atMost?: Record<string, number>;
}

export interface EvalCheck {
  figure: string;
  bound: "≥" | "≤";
  limit: number;
  value: number | null;
  ok: boolean;
}

export function evalChecks(r: EvalRecord): EvalCheck[] {
  const num = (v: unknown) => (typeof v === "number" ? v : Array.isArray(v) ? v.length : null);
  return [
    ...Object.entries(r.atLeast ?? {}).map(([figure, limit]) => {
      const value = num(r.figures[figure]);
      return { figure, bound: "≥" as const, limit, value, ok: value !== null && value >= limit };
    }),
    ...Object.entries(r.atMost ?? {}).map(([figure, limit]) => {
      const value = num(r.figures[figure]);
      return { figure, bound: "≤" as const, limit, value, ok: value !== null && value <= limit };
    }),
  ];
}

export function recordEval(r: EvalRecord): void {
  const file = process.env.MEMO_EVAL_REPORT;
  if (!file) return;
  fs.appendFileSync(file, `${JSON.stringify({ ...r, checks: evalChecks(r), at: new Date().toISOString() })}\n`);
}
