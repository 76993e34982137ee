/** The filter bars above lists: labelled selects and inputs in a row, applied on change or by a submit button. */
import type { FormEvent, InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

/** A row of filters applied as they change (no submit button). */
export function FilterBar({ children }: { children: ReactNode }) {
  return <div className="filters">{children}</div>;
}

/** Every named field of a form with a value, trimmed; empty fields are left out. */
export function filledValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) {
    const text = String(value).trim();
    if (text) values[name] = text;
  }
  return values;
}

/** A row of filters applied by its submit button: `onApply` gets the filled fields (see `filledValues`). */
export function FilterForm({
  onApply,
  submitLabel = "Filter",
  submitTestId,
  testId,
  after,
  children,
}: {
  onApply: (values: Record<string, string>) => void;
  submitLabel?: string;
  submitTestId?: string;
  testId?: string;
  /** Controls after the submit button (e.g. an export). */
  after?: ReactNode;
  children: ReactNode;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onApply(filledValues(event.currentTarget));
  }
  return (
    <form className="filters" onSubmit={submit} data-testid={testId}>
      {children}
      <button type="submit" className="button" data-testid={submitTestId}>
        {submitLabel}
      </button>
      {after}
    </form>
  );
}

/** A labelled select over `options`; controlled (value, onChange) or a named form field (name, defaultValue). */
export function SelectFilter<V extends string | number>({
  label,
  options,
  optionLabel = String,
  testId,
  labelClassName,
  ...select
}: {
  label: ReactNode;
  options: readonly V[];
  optionLabel?: (option: V) => string;
  testId?: string;
  /** A lone filter can be the bar itself (className "filters"). */
  labelClassName?: string;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, "children">) {
  return (
    <label className={labelClassName}>
      {label}
      <select data-testid={testId} {...select}>
        {options.map((option) => (
          <option key={option} value={option}>
            {optionLabel(option)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A labelled text input in a filter bar. */
export function TextFilter({
  label,
  testId,
  ...input
}: { label: ReactNode; testId?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label>
      {label}
      <input data-testid={testId} {...input} />
    </label>
  );
}

/** Labels the empty choice of a filter "any". */
export const anyOption = (value: string) => value || "any";

/** The values of `keys` only: a form's fields narrowed to the filters a query takes. */
export function pick<K extends string>(
  values: Record<string, string>,
  keys: readonly K[],
): Partial<Record<K, string>> {
  return Object.fromEntries(keys.flatMap((key) => (values[key] ? [[key, values[key]]] : []))) as Partial<
    Record<K, string>
  >;
}

/** The one-select bar of the status-filtered queues: picking a status applies it. */
export function StatusFilter<S extends string>({
  statuses,
  status,
  onChange,
  testId,
  after,
}: {
  statuses: readonly S[];
  status: S;
  onChange: (status: S) => void;
  testId: string;
  /** Controls after the select (e.g. an export). */
  after?: ReactNode;
}) {
  return (
    <FilterBar>
      <SelectFilter
        label="Status"
        value={status}
        options={statuses}
        onChange={(event) => onChange(event.target.value as S)}
        testId={testId}
      />
      {after}
    </FilterBar>
  );
}
