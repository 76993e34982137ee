/**
 * "Run a test paid call" (decision 0075): the API pays one real call for the merchant on its local chain and
 * answers with the receipt. The button shows "Paying…" while the call runs (a few seconds on a local chain), then
 * the receipt id and transaction, each with a copy button; a refusal or failure is shown in the problem banner.
 * `onPaid` re-reads the checklist, so step 3 ticks from the API's own count.
 */
import { useState } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import type { MerchantApi, TestPaidCallResult } from "../../lib/trpc";
import { ActionButton } from "../../ui/ActionButton";
import { CopyButton } from "../../ui/Copy";

export function TestPaidCallButton({
  api,
  merchantId,
  network,
  tier,
  unitPrice,
  onPaid,
}: {
  api: MerchantApi;
  merchantId: string;
  network: string;
  tier: string;
  unitPrice: string;
  onPaid: () => unknown;
}) {
  const { busy, problem, run } = useAction();
  const [result, setResult] = useState<TestPaidCallResult>();
  return (
    <div data-testid="start-test-call">
      <p>
        Tollgate pays one call to a test resource gated for you, at your <code>{tier}</code> price (
        {unitPrice} USD a unit), with the dev stack's funded demo key on {network}. Nothing real is spent.
      </p>
      <div className="actions">
        <ActionButton
          busy={busy}
          testId="start-test-call-run"
          onClick={() =>
            run(async () => {
              setResult(undefined);
              setResult(await api.runTestPaidCall(merchantId));
              await onPaid();
            })
          }
        >
          {busy ? "Paying…" : "Run a test paid call"}
        </ActionButton>
      </div>
      {busy ? (
        <p role="status" className="muted" data-testid="start-test-call-progress">
          Paying on {network}: quote, transaction, receipt…
        </p>
      ) : null}
      <ProblemBanner problem={problem} testId="start-test-call-problem" />
      {result ? (
        <div role="status" data-testid="start-test-call-result">
          <dl className="facts">
            <dt>Receipt</dt>
            <dd>
              <code data-testid="start-test-call-receipt">{result.receipt_id}</code>{" "}
              <CopyButton value={result.receipt_id} what="receipt id" />
            </dd>
            <dt>Transaction</dt>
            <dd>
              <code data-testid="start-test-call-tx">{result.tx_hash}</code>{" "}
              <CopyButton value={result.tx_hash} what="transaction hash" />
            </dd>
            <dt>Paid</dt>
            <dd data-testid="start-test-call-amount">
              {result.amount} {result.asset} on {result.network}
            </dd>
          </dl>
        </div>
      ) : null}
    </div>
  );
}
