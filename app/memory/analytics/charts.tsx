"use client";

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";

export const KIND_COLORS: Record<string, string> = {
  chat: "#0284c7",
  document: "#d97706",
  remember: "#7c3aed",
  import: "#059669",
  consolidated: "#e11d48",
};
const KINDS = Object.keys(KIND_COLORS);

type OverTimePoint = { period: string } & Record<string, number | string>;

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** One date style on every axis: "3 Jun 2024" for a day or week, "Jun 2024" for a month, "before …" kept. */
export function periodLabel(p: string): string {
  if (p.startsWith("before ")) return `before ${periodLabel(p.slice(7))}`;
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(p);
  if (!m) return p;
  const month = MONTHS[Number(m[2]) - 1];
  return m[3] ? `${Number(m[3])} ${month} ${m[1]}` : `${month} ${m[1]}`;
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
