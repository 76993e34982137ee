import {
  type EvmNetworkName,
  type FieldError,
  type NetworkMode,
  SETTLEMENT_VERSIONS,
  type SettlementVersion,
} from "@tollgate/shared";
import { useId } from "react";
import { FieldMessage } from "../../components/Field";
import { errorFor } from "../../lib/errors";
import { type ConsoleNetwork, networkLabel, networksInMode } from "../../lib/networks";

export const VERSION_LABELS: Record<SettlementVersion, string> = {
  "1.2": "1.2 (legacy splitter, default)",
  "1.4": "1.4 (server-signed quotes)",
};

export function isSettlementVersion(value: string): value is SettlementVersion {
  return (SETTLEMENT_VERSIONS as readonly string[]).includes(value);
}

export interface SettlementFieldsProps {
  mode: NetworkMode;
  /** The API's network list; undefined while it loads (the current chain stays the only option meanwhile). */
  networks: readonly ConsoleNetwork[] | undefined;
  version: SettlementVersion;
  chain: EvmNetworkName;
  onVersionChange: (version: SettlementVersion) => void;
  onChainChange: (chain: EvmNetworkName) => void;
  errors: readonly FieldError[];
}

/** Settlement version and chain; only chains of the merchant's network mode are offered (SPEC §2.1). */
export function SettlementFields({
  mode,
  networks,
  version,
  chain,
  onVersionChange,
  onChainChange,
  errors,
}: SettlementFieldsProps) {
  const id = useId();
  const offered = networks ? networksInMode(networks, mode) : [];
  // The current chain is always an option, so the select never shows a value it does not list.
  const chains = offered.some((network) => network.name === chain) ? offered : [{ name: chain }, ...offered];
  const versionError = errorFor(errors, "settlement_version");
  const chainError = errorFor(errors, "settlement_chain");
  return (
    <>
      <div className={`field${versionError ? " field--invalid" : ""}`}>
        <label htmlFor={`${id}-version`}>Settlement version</label>
        <select
          id={`${id}-version`}
          data-testid="settlement-version"
          value={version}
          aria-describedby={`${id}-version-hint`}
          aria-invalid={versionError ? true : undefined}
          onChange={(event) => {
            if (isSettlementVersion(event.target.value)) onVersionChange(event.target.value);
          }}
        >
          {SETTLEMENT_VERSIONS.map((value) => (
            <option key={value} value={value}>
              {VERSION_LABELS[value]}
            </option>
          ))}
        </select>
        <p className="field__hint" id={`${id}-version-hint`}>
          Selecting 1.4 enables nothing by itself: readiness is checked when a quote is made.
        </p>
        <FieldMessage testId="settlement-version-error" message={versionError} />
      </div>
      <div className={`field${chainError ? " field--invalid" : ""}`}>
        <label htmlFor={`${id}-chain`}>Settlement chain</label>
        <select
          id={`${id}-chain`}
          data-testid="settlement-chain"
          value={chain}
          aria-describedby={`${id}-chain-hint`}
          aria-invalid={chainError ? true : undefined}
          onChange={(event) => {
            const next = chains.find((network) => network.name === event.target.value);
            if (next) onChainChange(next.name);
          }}
        >
          {chains.map((network) => (
            <option key={network.name} value={network.name}>
              {"chainId" in network ? networkLabel(network) : network.name}
            </option>
          ))}
        </select>
        <p className="field__hint" id={`${id}-chain-hint`}>
          Only {mode} networks are offered. The chain never changes your payout wallet.
        </p>
        <FieldMessage testId="settlement-chain-error" message={chainError} />
      </div>
    </>
  );
}

export const SETTLEMENT_PATHS = new Set(["settlement_version", "settlement_chain"]);
