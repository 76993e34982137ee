/**
 * The one date range of the pages with daily series (decision 0073): a preset or a custom pair of UTC days, kept
 * in the URL (`?range=7d`, `?range=custom&from=YYYY-MM-DD&to=YYYY-MM-DD`) and carried from page to page in
 * memory (ui/DateRange.tsx), so the overview, the fees and the dashboard show the same days until someone changes them.
 */
export const PRESETS = ["24h", "7d", "30d", "90d"] as const;
export type Preset = (typeof PRESETS)[number];
export type RangeChoice = Preset | "custom";

export const PRESET_LABELS: Record<RangeChoice, string> = {
  "24h": "24 h",
  "7d": "7 d",
  "30d": "30 d",
  "90d": "90 d",
  custom: "Custom",
};

/**
 * UTC days each preset spans, today included. The series are per UTC day, so "24 h" is yesterday and today: the
 * smallest run of whole days that holds the last 24 hours.
 */
export const PRESET_DAYS: Record<Preset, number> = { "24h": 2, "7d": 7, "30d": 30, "90d": 90 };
export const DEFAULT_PRESET: Preset = "30d";
const DAY_MS = 86_400_000;

export interface ResolvedRange {
  choice: RangeChoice;
  /** First and last UTC day shown (YYYY-MM-DD), both included. */
  from: string;
  to: string;
  /** Days from `from` to `to`, both included. */
  days: number;
}

export type RangeProblem = { field: "from" | "to"; message: string };

export type ParsedRange =
  | { ok: true; range: ResolvedRange }
  | { ok: false; choice: "custom"; from: string; to: string; problem: RangeProblem };

const isDay = (value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function presetRange(preset: Preset, now = Date.now()): ResolvedRange {
  const days = PRESET_DAYS[preset];
  const today = Date.parse(`${dayOf(now)}T00:00:00Z`);
  return { choice: preset, from: dayOf(today - (days - 1) * DAY_MS), to: dayOf(today), days };
}

/** Checks a custom pair; the problem names the field to fix (a reversed range is the "From" field's). */
export function customRange(from: string, to: string): ParsedRange {
  const fail = (field: "from" | "to", message: string): ParsedRange => ({
    ok: false,
    choice: "custom",
    from,
    to,
    problem: { field, message },
  });
  if (!from) return fail("from", "From: enter the first day.");
  if (!isDay(from)) return fail("from", "From: enter a day as YYYY-MM-DD.");
  if (!to) return fail("to", "To: enter the last day.");
  if (!isDay(to)) return fail("to", "To: enter a day as YYYY-MM-DD.");
  if (from > to) return fail("from", "From must be on or before To.");
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
  return { ok: true, range: { choice: "custom", from, to, days } };
}

/** The range a query string names; none named is undefined (the caller falls back to the carried one). */
export function parseRange(params: URLSearchParams, now = Date.now()): ParsedRange | undefined {
  const choice = params.get("range");
  if (choice === null) return undefined;
  if ((PRESETS as readonly string[]).includes(choice))
    return { ok: true, range: presetRange(choice as Preset, now) };
  if (choice === "custom") return customRange(params.get("from") ?? "", params.get("to") ?? "");
  return { ok: true, range: presetRange(DEFAULT_PRESET, now) };
}

/** Writes a range into a copy of `params` (other parameters kept). */
export function withRange(
  params: URLSearchParams,
  choice: RangeChoice,
  from?: string,
  to?: string,
): URLSearchParams {
  const next = new URLSearchParams(params);
  next.set("range", choice);
  next.delete("from");
  next.delete("to");
  if (choice === "custom") {
    next.set("from", from ?? "");
    next.set("to", to ?? "");
  }
  return next;
}
