/**
 * The window of the series the consoles draw over their one date range (decision 0073): whole UTC days, `from` and
 * `to` both included, at most `MAX_RANGE_DAYS`. A reversed or too long pair is a 400 naming `from` (decision 0069).
 * The bucket a series is summed in follows the window (decision 0078): hours for two days or fewer (the "24 h"
 * preset is yesterday and today), days beyond.
 */
import { AppError } from "@tollgate/shared";
import { z } from "zod";

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
export const MAX_RANGE_DAYS = 366;
/** Windows of this many days or fewer are summed per hour. */
export const HOURLY_MAX_DAYS = 2;

export const ZDay = z.iso.date().describe("YYYY-MM-DD (UTC)");

/** The query fields of a day range; both optional (the default is the 30 days up to today). */
export const dayRangeFields = {
  from: ZDay.optional().describe("first day included; default 29 days before `to`"),
  to: ZDay.optional().describe("last day included; default today"),
};

export type SeriesBucket = "hour" | "day";

export interface DayRange {
  /** First instant included (midnight UTC of the first day). */
  from: Date;
  /** First instant after the window (midnight UTC after the last day). */
  end: Date;
  days: number;
  bucket: SeriesBucket;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
export const rangeDays = (range: DayRange) => ({
  from: dayOf(range.from),
  to: dayOf(new Date(range.end.getTime() - DAY_MS)),
});

export const bucketFor = (days: number): SeriesBucket => (days <= HOURLY_MAX_DAYS ? "hour" : "day");

/** A window of `days` whole UTC days ending today (the merchant reads' "last N days", SPEC §4.2). */
export function lastDays(now: Date, days: number): DayRange {
  const end = Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  return { from: new Date(end - days * DAY_MS), end: new Date(end), days, bucket: bucketFor(days) };
}

/** The window a `from`/`to` pair names; `defaultDays` up to `to` when `from` is left out. */
export function resolveDayRange(
  input: { from?: string | undefined; to?: string | undefined },
  now: Date,
  defaultDays = 30,
): DayRange {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const to = input.to ? Date.parse(`${input.to}T00:00:00Z`) : today;
  const from = input.from ? Date.parse(`${input.from}T00:00:00Z`) : to - (defaultDays - 1) * DAY_MS;
  const days = (to - from) / DAY_MS + 1;
  if (days < 1 || days > MAX_RANGE_DAYS) {
    // The field is named, as a schema refinement names it, so a form can mark it (decision 0069).
    const message =
      days < 1 ? "from must not be after to" : `the range from..to is at most ${MAX_RANGE_DAYS} days`;
    throw new AppError("validation_failed", message, {
      errors: [{ path: "from", code: "invalid_value", message }],
    });
  }
  return { from: new Date(from), end: new Date(to + DAY_MS), days, bucket: bucketFor(days) };
}

/** Every bucket start of the window, as the series name them (`2026-12-07T13:00:00Z`), oldest first. */
export function bucketStarts(range: DayRange): string[] {
  const step = range.bucket === "hour" ? HOUR_MS : DAY_MS;
  const starts: string[] = [];
  for (let at = range.from.getTime(); at < range.end.getTime(); at += step) {
    starts.push(`${new Date(at).toISOString().slice(0, 19)}Z`);
  }
  return starts;
}
