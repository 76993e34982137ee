import { useState } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import type { MerchantApi, RotateSecretResult } from "../../lib/trpc";
import { ConfirmActions } from "../../ui/ActionButton";

interface RotateSecretProps {
  api: MerchantApi;
  merchantId: string;
  onRotated: (result: RotateSecretResult) => void;
}

/** Secret rotation with a confirmation step: the old secret stops working the moment it succeeds. */
export function RotateSecret({ api, merchantId, onRotated }: RotateSecretProps) {
  const [confirming, setConfirming] = useState(false);
  const { busy, problem, run } = useAction();

  async function rotate() {
    if (!(await run(async () => onRotated(await api.rotateSecret(merchantId))))) setConfirming(false);
  }

  return (
    <section className="card" aria-labelledby="rotate-heading" data-testid="rotate-section">
      <h2 id="rotate-heading">Merchant secret</h2>
      <p>
        Rotating issues a new secret and invalidates the current one immediately: update every server that
        uses it.
      </p>
      {confirming ? (
        <ConfirmActions
          busy={busy}
          onConfirm={rotate}
          confirmTestId="rotate-confirm"
          onCancel={() => setConfirming(false)}
          cancelTestId="rotate-cancel"
        >
          {busy ? "Rotating…" : "Yes, rotate now"}
        </ConfirmActions>
      ) : (
        <div className="actions">
          <button
            type="button"
            className="button button--secondary"
            onClick={() => setConfirming(true)}
            data-testid="rotate-start"
          >
            Rotate secret
          </button>
        </div>
      )}
      <ProblemBanner problem={problem} testId="rotate-problem" />
    </section>
  );
}
