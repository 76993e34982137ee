/** Failed payments: the refund-by-hand queue, with a resolve action (refunded with its hash, or dismissed). */
import { type FormEvent, useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useCursor } from "../../hooks/useCursor";
import { useLoad } from "../../hooks/useLoad";
import { errorFor, type FormProblem, toFormProblem } from "../../lib/errors";
import type { FailedPayment } from "../api";
import { useAdmin } from "../context";
import { AgentLink, MerchantLink, TxLink } from "../links";
import { Amount, Dialog, Loaded, Pager, Table, Time } from "../ui";

const STATUSES = ["open", "refunded", "dismissed", "all"] as const;

export function FailedPage() {
  const { client, canAct } = useAdmin();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("open");
  const pager = useCursor(status);
  const list = useLoad(
    () => client.dashboard.failed.query({ status, ...(pager.cursor ? { cursor: pager.cursor } : {}) }),
    `${status}:${pager.cursor ?? ""}`,
  );
  const [resolving, setResolving] = useState<FailedPayment>();
  const [notice, setNotice] = useState<string>();
  return (
    <>
      <h1>Failed payments</h1>
      <p className="muted">
        Payments that moved money and bought nothing. Tollgate sends no money itself: refund by hand, then
        record it.
      </p>
      <div className="filters">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => setStatus(event.target.value as typeof status)}
            data-testid="failed-status"
          >
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      <Notice message={notice} testId="failed-notice" />
      <Loaded load={list} what="failed payments">
        {(data) => (
          <>
            <Table
              caption={`${status} failed payments`}
              testId="failed-table"
              rows={data.failed}
              rowKey={(f) => f.id}
              empty="No failed payment here."
              columns={[
                { header: "Seen", cell: (f) => <Time at={f.seen_at} /> },
                { header: "Kind", cell: (f) => `${f.kind} (${f.reason})` },
                {
                  header: "Amount",
                  cell: (f) => <Amount base={f.total_amount} asset={f.asset} />,
                  numeric: true,
                },
                { header: "Merchant", cell: (f) => <MerchantLink id={f.merchant_id} /> },
                { header: "Payer", cell: (f) => <AgentLink address={f.payer} /> },
                {
                  header: "Transaction",
                  cell: (f) => <TxLink explorerUrl={f.explorer_url} hash={f.tx_hash} />,
                },
                {
                  header: "Status",
                  cell: (f) =>
                    f.status === "open" ? (
                      <button
                        type="button"
                        className="button"
                        disabled={!canAct}
                        onClick={() => setResolving(f)}
                        aria-label={`Resolve ${f.id}`}
                      >
                        Resolve…
                      </button>
                    ) : (
                      `${f.status}${f.resolution ? `: ${f.resolution.note}` : ""}`
                    ),
                },
              ]}
            />
            <Pager
              label="Failed"
              page={pager.page}
              nextCursor={data.next_cursor}
              onNext={pager.next}
              onPrevious={pager.previous}
            />
          </>
        )}
      </Loaded>
      {resolving ? (
        <Resolve
          failed={resolving}
          onCancel={() => setResolving(undefined)}
          onDone={(message) => {
            setResolving(undefined);
            setNotice(message);
            list.reload();
          }}
        />
      ) : null}
    </>
  );
}

function Resolve({
  failed,
  onCancel,
  onDone,
}: {
  failed: FailedPayment;
  onCancel: () => void;
  onDone: (m: string) => void;
}) {
  const { client } = useAdmin();
  const [resolution, setResolution] = useState<"refunded" | "dismissed">("refunded");
  const [note, setNote] = useState("");
  const [hash, setHash] = useState("");
  const [problem, setProblem] = useState<FormProblem>();
  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await client.dashboard.resolveFailed.mutate({
        id: failed.id,
        resolution,
        note,
        ...(resolution === "refunded" && hash ? { refund_tx_hash: hash } : {}),
      });
      onDone(`Recorded ${failed.id} as ${resolution}.`);
    } catch (error) {
      setProblem(toFormProblem(error));
    }
  }
  const errors = problem?.errors ?? [];
  return (
    <Dialog title={`Resolve ${failed.id}`} onCancel={onCancel} testId="resolve-dialog">
      <ProblemBanner problem={problem} testId="resolve-problem" />
      <form onSubmit={submit}>
        <label htmlFor="resolution">Resolution</label>
        <select
          id="resolution"
          value={resolution}
          onChange={(event) => setResolution(event.target.value as typeof resolution)}
        >
          <option value="refunded">refunded</option>
          <option value="dismissed">dismissed</option>
        </select>
        <label htmlFor="resolve-note">Note</label>
        <textarea id="resolve-note" value={note} onChange={(event) => setNote(event.target.value)} required />
        {errorFor(errors, "note") ? <p className="field__error">{errorFor(errors, "note")}</p> : null}
        {resolution === "refunded" ? (
          <>
            <label htmlFor="refund-hash">Refund transaction hash (optional)</label>
            <input id="refund-hash" value={hash} onChange={(event) => setHash(event.target.value)} />
            {errorFor(errors, "refund_tx_hash") ? (
              <p className="field__error">{errorFor(errors, "refund_tx_hash")}</p>
            ) : null}
          </>
        ) : null}
        <div className="actions">
          <button type="submit" className="button">
            Record
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
