import { type FieldError, MAX_TIERS } from "@tollgate/shared";
import { useId } from "react";
import { FieldMessage } from "../../components/Field";
import { errorFor } from "../../lib/errors";
import { newTierRow, type TierRow } from "./tiers";

interface TiersEditorProps {
  rows: TierRow[];
  onChange: (rows: TierRow[]) => void;
  errors: readonly FieldError[];
  disabled?: boolean;
}

/** Rows of tier name + unit price in USD; errors for `tiers.<name>` show on that row, `tiers` under the table. */
export function TiersEditor({ rows, onChange, errors, disabled }: TiersEditorProps) {
  const id = useId();
  const update = (key: string, change: Partial<TierRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  return (
    <fieldset className="tiers" data-testid="tiers-editor" disabled={disabled}>
      <legend>Pricing tiers</legend>
      <p className="field__hint" id={`${id}-hint`}>
        Unit price per call in USD (up to 6 decimal places). Quotes are generated against these tiers. Names:
        a-z first, then a-z, 0-9, "_" or "-".
      </p>
      {rows.map((row, index) => {
        const rowError = errorFor(errors, `tiers.${row.name.trim()}`);
        return (
          <div className="tiers__row" key={row.key} data-testid={`tier-row-${index}`}>
            <div className="field">
              <label htmlFor={`${id}-${row.key}-name`}>Tier {index + 1} name</label>
              <input
                id={`${id}-${row.key}-name`}
                data-testid={`tier-name-${index}`}
                value={row.name}
                autoComplete="off"
                spellCheck={false}
                aria-invalid={rowError ? true : undefined}
                aria-describedby={rowError ? `${id}-${row.key}-error` : `${id}-hint`}
                onChange={(event) => update(row.key, { name: event.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-${row.key}-price`}>Tier {index + 1} price (USD)</label>
              <input
                id={`${id}-${row.key}-price`}
                data-testid={`tier-price-${index}`}
                value={row.price}
                inputMode="decimal"
                autoComplete="off"
                aria-invalid={rowError ? true : undefined}
                aria-describedby={rowError ? `${id}-${row.key}-error` : `${id}-hint`}
                onChange={(event) => update(row.key, { price: event.target.value })}
              />
            </div>
            <button
              type="button"
              className="button button--quiet"
              data-testid={`tier-remove-${index}`}
              aria-label={`Remove tier ${row.name || index + 1}`}
              onClick={() => onChange(rows.filter((other) => other.key !== row.key))}
            >
              Remove
            </button>
            <div className="tiers__error">
              <FieldMessage id={`${id}-${row.key}-error`} testId={`tier-error-${index}`} message={rowError} />
            </div>
          </div>
        );
      })}
      <FieldMessage testId="tiers-error" message={errorFor(errors, "tiers")} />
      <button
        type="button"
        className="button button--secondary"
        data-testid="tier-add"
        disabled={rows.length >= MAX_TIERS}
        onClick={() => onChange([...rows, newTierRow()])}
      >
        Add tier
      </button>
    </fieldset>
  );
}

/** Whether the editor shows an error for this path inline: `tiers` and `tiers.<name>` of a listed row. */
export function claimsTierPath(rows: readonly TierRow[]): (path: string) => boolean {
  const names = new Set(rows.map((row) => `tiers.${row.name.trim()}`));
  return (path) => path === "tiers" || names.has(path);
}
