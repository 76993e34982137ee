import { type FormEvent, useEffect, useId, useMemo, useState } from "react";
import { useSearchParams } from "react-router";
import {
  DEFAULT_PRESET,
  type ParsedRange,
  PRESET_LABELS,
  PRESETS,
  parseRange,
  presetRange,
  type RangeChoice,
  type ResolvedRange,
  withRange,
} from "./dateRange";

/**
 * The range carried from page to page: kept in this module (the console is one page load), never in storage, so
 * the operator console stores nothing in the page (its browser test checks). A reload keeps it in the URL.
 */
let carriedQuery: string | undefined;

function carried(): URLSearchParams | undefined {
  return carriedQuery ? new URLSearchParams(carriedQuery) : undefined;
}

function carry(params: URLSearchParams) {
  const kept = new URLSearchParams();
  for (const name of ["range", "from", "to"]) {
    const value = params.get(name);
    if (value !== null) kept.set(name, value);
  }
  carriedQuery = kept.toString();
}

/** For tests: forget the carried range. */
export function forgetCarriedRange() {
  carriedQuery = undefined;
}

/**
 * The page's date range (decision 0073): the URL's, else the one carried from the last page that showed one, else
 * the default. `range` is the last valid one (a reversed custom pair keeps the data on screen); `parsed` says
 * whether the URL's is valid. `allowCustom: false` (a read that only takes "the last N days") keeps to presets.
 */
export function useDateRange({ allowCustom = true }: { allowCustom?: boolean } = {}) {
  const [params, setParams] = useSearchParams();
  const fromUrl = parseRange(params);
  const fallback = useMemo(() => {
    const stored = carried();
    const parsed = stored ? parseRange(stored) : undefined;
    if (parsed?.ok && (allowCustom || parsed.range.choice !== "custom")) return parsed.range;
    return presetRange(DEFAULT_PRESET);
  }, [allowCustom]);
  // A custom pair in the URL means nothing to a page that only takes presets: it shows the carried preset.
  const parsed: ParsedRange =
    fromUrl && (allowCustom || params.get("range") !== "custom") ? fromUrl : { ok: true, range: fallback };
  const [lastValid, setLastValid] = useState<ResolvedRange>(parsed.ok ? parsed.range : fallback);
  const key = parsed.ok ? `${parsed.range.choice}:${parsed.range.from}:${parsed.range.to}` : "invalid";
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the parsed range.
  useEffect(() => {
    if (parsed.ok) setLastValid(parsed.range);
  }, [key]);
  // A page opened without a range in its URL shows the carried one, and says so in its URL (shareable).
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the URL lacks a range.
  useEffect(() => {
    if (params.get("range") !== null) {
      carry(params);
      return;
    }
    setParams(withRange(params, fallback.choice, fallback.from, fallback.to), { replace: true });
  }, [params]);
  const choose = (choice: RangeChoice, from?: string, to?: string) =>
    setParams(withRange(params, choice, from, to));
  return { parsed, range: parsed.ok ? parsed.range : lastValid, choose, allowCustom };
}

export type DateRangeState = ReturnType<typeof useDateRange>;

/** Presets, and a custom pair of days applied by a button; a bad pair names the field to fix. */
export function DateRangeControl({
  state,
  testId = "date-range",
}: {
  state: DateRangeState;
  testId?: string;
}) {
  const { parsed, range, choose, allowCustom } = state;
  const id = useId();
  const choice: RangeChoice = parsed.ok ? parsed.range.choice : "custom";
  const [draft, setDraft] = useState({ from: range.from, to: range.to });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the fields follow the range the URL names.
  useEffect(() => {
    if (parsed.ok) setDraft({ from: parsed.range.from, to: parsed.range.to });
    else setDraft({ from: parsed.from, to: parsed.to });
  }, [parsed.ok ? `${parsed.range.from}:${parsed.range.to}` : `${parsed.from}:${parsed.to}`]);
  const problem = parsed.ok ? undefined : parsed.problem;
  const choices: RangeChoice[] = allowCustom ? [...PRESETS, "custom"] : [...PRESETS];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    choose("custom", draft.from, draft.to);
  };
  return (
    <form className="filters date-range" onSubmit={submit} data-testid={testId}>
      <fieldset className="date-range__presets">
        <legend>Range</legend>
        {choices.map((value) => (
          <label key={value} className="date-range__preset">
            <input
              type="radio"
              name={`${id}-range`}
              value={value}
              checked={choice === value}
              onChange={() => (value === "custom" ? choose("custom", range.from, range.to) : choose(value))}
              data-testid={`${testId}-${value}`}
            />
            {PRESET_LABELS[value]}
          </label>
        ))}
      </fieldset>
      {choice === "custom" ? (
        <>
          <label>
            From{" "}
            <input
              type="date"
              name="from"
              value={draft.from}
              onChange={(event) => setDraft({ ...draft, from: event.target.value })}
              aria-invalid={problem?.field === "from" ? true : undefined}
              aria-describedby={problem?.field === "from" ? `${id}-problem` : undefined}
              data-testid={`${testId}-from`}
            />
          </label>
          <label>
            To{" "}
            <input
              type="date"
              name="to"
              value={draft.to}
              onChange={(event) => setDraft({ ...draft, to: event.target.value })}
              aria-invalid={problem?.field === "to" ? true : undefined}
              aria-describedby={problem?.field === "to" ? `${id}-problem` : undefined}
              data-testid={`${testId}-to`}
            />
          </label>
          <button type="submit" className="button" data-testid={`${testId}-apply`}>
            Show
          </button>
        </>
      ) : null}
      <span className="muted" data-testid={`${testId}-shown`}>
        {range.from} to {range.to} (UTC)
      </span>
      {problem ? (
        <p
          id={`${id}-problem`}
          className="field__error date-range__problem"
          role="alert"
          data-testid={`${testId}-problem`}
        >
          {problem.message}
        </p>
      ) : null}
    </form>
  );
}
