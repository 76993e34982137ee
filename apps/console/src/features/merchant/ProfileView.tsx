import { type ConsoleNetwork, networkLabel } from "../../lib/networks";
import type { MerchantProfile } from "../../lib/trpc";
import { VERSION_LABELS } from "./SettlementFields";

const PAYOUT_LABELS = { evm: "EVM", solana: "Solana", near: "NEAR", aptos: "Aptos" } as const;

/** The signed-in merchant's profile, read-only. */
export function ProfileView({
  merchant,
  networks,
}: {
  merchant: MerchantProfile;
  /** The API's network list, for the chain's label; the bare name until it loads. */
  networks?: readonly ConsoleNetwork[] | undefined;
}) {
  const chain = networks?.find((network) => network.name === merchant.settlement_chain);
  const payouts = (Object.keys(PAYOUT_LABELS) as (keyof typeof PAYOUT_LABELS)[]).filter(
    (family) => merchant.pay_to[family] !== undefined,
  );
  return (
    <section className="card" aria-labelledby="profile-heading" data-testid="profile-view">
      <h2 id="profile-heading" data-testid="profile-heading-name">
        {merchant.name}
      </h2>
      <dl className="facts">
        <dt>Merchant id</dt>
        <dd>
          <code data-testid="profile-merchant-id">{merchant.merchant_id}</code>
        </dd>
        <dt>Name</dt>
        <dd data-testid="profile-view-name">{merchant.name}</dd>
        <dt>Network mode</dt>
        <dd data-testid="profile-view-mode">
          {merchant.network_mode === "live" ? "Live (mainnet)" : "Test (testnet)"}{" "}
          <span className="muted">· permanent, set at registration</span>
        </dd>
        <dt>Settlement version</dt>
        <dd data-testid="profile-view-version">{VERSION_LABELS[merchant.settlement_version]}</dd>
        <dt>Settlement chain</dt>
        <dd data-testid="profile-view-chain">{chain ? networkLabel(chain) : merchant.settlement_chain}</dd>
        <dt>Webhook URL</dt>
        <dd data-testid="profile-view-webhook">
          {merchant.webhook_url ? (
            <code>{merchant.webhook_url}</code>
          ) : (
            <span className="muted">not set</span>
          )}
        </dd>
      </dl>

      <h3>Payout wallets</h3>
      <dl className="facts" data-testid="profile-view-payouts">
        {payouts.map((family) => (
          <div key={family} className="facts__row">
            <dt>{PAYOUT_LABELS[family]}</dt>
            <dd>
              <code data-testid={`profile-view-pay-to-${family}`}>{merchant.pay_to[family]}</code>
            </dd>
          </div>
        ))}
      </dl>
      <p className="field__hint" data-testid="profile-view-payout-hint">
        To change the payout wallet, use "Change the payout" on this page: the current payout wallet signs the
        change (owner step-up).
      </p>

      <h3>Tiers</h3>
      <table className="table" data-testid="profile-view-tiers">
        <thead>
          <tr>
            <th scope="col">Tier</th>
            <th scope="col">Unit price (USD)</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(merchant.tiers).map(([tier, price]) => (
            <tr key={tier} data-testid={`profile-view-tier-${tier}`}>
              <td>{tier}</td>
              <td className="num">{price}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
