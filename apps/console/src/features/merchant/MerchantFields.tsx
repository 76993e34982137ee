/** The fields registration and the profile edit share, so both forms read and validate them alike. */
import type { EvmNetworkName, FieldError, SettlementVersion } from "@tollgate/shared";
import { useState } from "react";
import { Field } from "../../components/Field";
import { errorFor, type FormProblem } from "../../lib/errors";
import { SETTLEMENT_PATHS, SettlementFields, type SettlementFieldsProps } from "./SettlementFields";
import { claimsTierPath, TiersEditor } from "./TiersEditor";
import type { TierRow } from "./tiers";

/** The problem a form shows when the shared schema refused some fields before any request. */
export function fieldsProblem(errors: FieldError[]): FormProblem {
  return { message: "Some fields need attention.", errors };
}

/**
 * Whether one of the shared fields (name, settlement, tiers, webhook URL) shows the error at `path` next to
 * itself; what no field claims goes to the form's banner (lib/errors.ts `unclaimed`).
 */
export function claimsMerchantPath(tierRows: readonly TierRow[]): (path: string) => boolean {
  const claimsTier = claimsTierPath(tierRows);
  return (path) =>
    path === "name" || path === "webhook_url" || SETTLEMENT_PATHS.has(path) || claimsTier(path);
}

export function MerchantNameField({
  testId,
  value,
  onChange,
  errors,
  required,
}: {
  testId: string;
  value: string;
  onChange: (value: string) => void;
  errors: readonly FieldError[];
  required?: boolean;
}) {
  return (
    <Field
      label="Merchant name"
      testId={testId}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      error={errorFor(errors, "name")}
      hint="3 to 80 characters."
      autoComplete="organization"
      required={required}
    />
  );
}

/** The settlement version and chain and the price-tier rows a merchant form edits, and the props that edit them. */
export function useSettlementAndTiers(initial: {
  version: SettlementVersion;
  chain: EvmNetworkName;
  tierRows: TierRow[] | (() => TierRow[]);
}) {
  const [version, setVersion] = useState(initial.version);
  const [chain, setChain] = useState(initial.chain);
  const [tierRows, setTierRows] = useState<TierRow[]>(initial.tierRows);
  return {
    version,
    chain,
    setChain,
    tierRows,
    fields: {
      version,
      chain,
      onVersionChange: setVersion,
      onChainChange: setChain,
      tierRows,
      onTierRowsChange: setTierRows,
    },
  };
}

/** Settlement version and chain as their own group, then the price tiers. */
export function SettlementAndTiers({
  tierRows,
  onTierRowsChange,
  ...settlement
}: SettlementFieldsProps & { tierRows: TierRow[]; onTierRowsChange: (rows: TierRow[]) => void }) {
  return (
    <>
      <fieldset className="group">
        <legend>Settlement</legend>
        <SettlementFields {...settlement} />
      </fieldset>
      <TiersEditor rows={tierRows} onChange={onTierRowsChange} errors={settlement.errors} />
    </>
  );
}

/**
 * The one statement of what a webhook URL may be, as the API checks it (merchant-service.ts checkWebhookPolicy,
 * WEBHOOK_ALLOW_LOOPBACK: on outside production only); every webhook URL field shows it.
 */
export const WEBHOOK_URL_RULE =
  "https, or http to a loopback address (localhost, 127.0.0.1) where this deployment allows it (not in production).";

export function WebhookUrlField({
  label,
  hint,
  testId,
  value,
  onChange,
  errors,
}: {
  label: string;
  /** What the field is for; the URL rule (WEBHOOK_URL_RULE) follows it. */
  hint: string;
  testId: string;
  value: string;
  onChange: (value: string) => void;
  errors: readonly FieldError[];
}) {
  return (
    <Field
      label={label}
      testId={testId}
      type="url"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      error={errorFor(errors, "webhook_url")}
      hint={`${hint} ${WEBHOOK_URL_RULE}`}
      spellCheck={false}
      autoComplete="url"
    />
  );
}
