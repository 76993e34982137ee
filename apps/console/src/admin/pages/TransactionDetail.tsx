/** One settlement: where it is on chain, how it split, and the quote and receipt it belongs to. */
import { Link, useParams } from "react-router";
import { useLoad } from "../../hooks/useLoad";
import { SCHEME_LABELS } from "../../lib/settlement-schemes";
import { useAdmin } from "../context";
import { AgentLink, BlockLink, MerchantLink, SearchLink, TxLink } from "../links";
import { Amount, Loaded, Mono, Stat, Time } from "../ui";

export function TransactionDetailPage() {
  const { client } = useAdmin();
  const id = useParams().id ?? "";
  const detail = useLoad(() => client.adminRead.transaction.query({ id }), id);
  return (
    <Loaded load={detail} what="the settlement">
      {({ transaction: t }) => (
        <>
          <h1>
            Settlement <Mono value={t.id} />
          </h1>
          <div className="stats" data-testid="transaction-detail">
            <Stat label="State" value={t.state} />
            <Stat label="Network" value={`${t.network} (${t.chain_id})`} />
            <Stat label="Amount" value={<Amount base={t.total_amount} asset={t.asset} />} />
            <Stat label="Seen" value={<Time at={t.seen_at} />} />
          </div>
          <div className="columns">
            <section className="section" aria-labelledby="t-chain">
              <h2 id="t-chain">On chain</h2>
              <dl className="facts">
                <dt>Transaction</dt>
                <dd>
                  <TxLink explorerUrl={t.explorer_url} hash={t.tx_hash} /> (log {t.log_index})
                </dd>
                <dt>Block</dt>
                <dd>
                  <BlockLink explorerUrl={t.explorer_url} block={t.block_number} />
                </dd>
                <dt>Payer</dt>
                <dd>
                  <AgentLink address={t.payer} />
                </dd>
                <dt>Merchant</dt>
                <dd>
                  <MerchantLink id={t.merchant_id} /> paid to <Mono value={t.merchant_address} />
                </dd>
                <dt>Confirmed</dt>
                <dd>{t.confirmed_at ? <Time at={t.confirmed_at} /> : "not yet"}</dd>
                <dt>Final</dt>
                <dd>{t.final_at ? <Time at={t.final_at} /> : "not yet"}</dd>
                {t.orphaned_at ? (
                  <>
                    <dt>Orphaned</dt>
                    <dd>
                      <Time at={t.orphaned_at} />
                    </dd>
                  </>
                ) : null}
              </dl>
            </section>
            <section className="section" aria-labelledby="t-split">
              <h2 id="t-split">Split</h2>
              <dl className="facts">
                <dt>Merchant</dt>
                <dd>
                  <Amount base={t.merchant_amount} asset={t.asset} />
                </dd>
                <dt>Treasury</dt>
                <dd>
                  <Amount base={t.treasury_amount} asset={t.asset} />
                </dd>
                <dt>IP creator</dt>
                <dd>
                  <Amount base={t.ip_creator_amount} asset={t.asset} />
                </dd>
              </dl>
            </section>
            <section className="section" aria-labelledby="t-quote">
              <h2 id="t-quote">Quote and receipt</h2>
              <dl className="facts">
                <dt>Scheme</dt>
                <dd>{SCHEME_LABELS[t.scheme] ?? t.scheme}</dd>
                {t.channel_id ? (
                  <>
                    <dt>Channel</dt>
                    <dd>
                      <Mono value={t.channel_id} />
                    </dd>
                  </>
                ) : null}
                <dt>Order</dt>
                <dd>
                  <Mono value={t.order_id} />
                </dd>
                <dt>Quote</dt>
                <dd>
                  {t.quote ? (
                    <>
                      <SearchLink q={t.quote.id} /> for {t.quote.resource} ({t.quote.tier}, {t.quote.units}{" "}
                      unit
                      {t.quote.units === 1 ? "" : "s"})
                    </>
                  ) : (
                    <SearchLink q={t.bridge_order_id} />
                  )}
                </dd>
                <dt>Receipt</dt>
                <dd>
                  {t.receipt ? (
                    <>
                      <SearchLink q={t.receipt.id} />, quota {t.receipt.quota}, expires{" "}
                      <Time at={t.receipt.expires_at} />
                    </>
                  ) : (
                    "none issued"
                  )}
                </dd>
              </dl>
            </section>
          </div>
          <p>
            <Link to="/transactions">All transactions</Link>
          </p>
        </>
      )}
    </Loaded>
  );
}
