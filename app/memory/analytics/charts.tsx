"use client";

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { periodLabel as period } from "../../_ui/local-time";

export const KIND_COLORS: Record<string, string> = {
  chat: "#0284c7",
  document: "#d97706",
  remember: "#7c3aed",
  import: "#059669",
  consolidated: "#e11d48",
};
const KINDS = Object.keys(KIND_COLORS);

type OverTimePoint = { period: string } & Record<string, number | string>;

/** The app's one date style on every axis (app/_ui/local-time.ts): a day or week, a month; "before …" kept. */
export function periodLabel(p: string): string {
  return p.startsWith("before ") ? `before ${period(p.slice(7))}` : period(p);
}

/** Stacked bars: live memories per period, by kind. */
export function OverTimeChart({ points }: { points: OverTimePoint[] }) {
  const present = KINDS.filter((k) => points.some((p) => Number(p[k]) > 0));
  return (
    <BarChart
      responsive
      data={points}
      style={{ width: "100%", height: 280 }}
      margin={{ top: 8, right: 8, bottom: 0, left: -16 }}
    >
      <CartesianGrid strokeDasharray="3 3" stroke="#a1a1aa55" vertical={false} />
      <XAxis
        dataKey="period"
        tick={{ fontSize: 11 }}
        minTickGap={16}
        interval="preserveStartEnd"
        tickFormatter={periodLabel}
      />
      <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
      <Tooltip labelFormatter={(l) => periodLabel(String(l))} />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      {(present.length ? present : ["chat"]).map((k) => (
        <Bar key={k} dataKey={k} stackId="kinds" fill={KIND_COLORS[k]} isAnimationActive={false} />
      ))}
    </BarChart>
  );
}

/** Bars per day: memories recalled into prompts that day (the retrieval log). */
export function RecallChart({ points }: { points: { day: string; retrievals: number }[] }) {
  const data = points.map((p) => ({ day: p.day.slice(0, 10), retrievals: p.retrievals }));
  return (
    <BarChart
      responsive
      data={data}
      style={{ width: "100%", height: 220 }}
      margin={{ top: 8, right: 8, bottom: 0, left: -16 }}
    >
      <CartesianGrid strokeDasharray="3 3" stroke="#a1a1aa55" vertical={false} />
      <XAxis dataKey="day" tick={{ fontSize: 11 }} minTickGap={16} tickFormatter={periodLabel} />
      <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
      <Tooltip labelFormatter={(l) => periodLabel(String(l))} />
      <Bar dataKey="retrievals" name="retrievals" fill="#0f766e" isAnimationActive={false} />
    </BarChart>
  );
}
