/**
 * Failed payments: the refund-by-hand queue by seen_at either way (`sort` in the URL), the exact total, the API's
 * CSV of every page (decision 0077), with a resolve action (refunded with its hash, or dismissed).
 */
import { useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { errorFor } from "../../lib/errors";
import { FormDialog, TextAreaField } from "../../ui/Dialog";
import { StatusFilter } from "../../ui/Filters";
import { PagedTable } from "../../ui/Pager";
import type { FailedPayment } from "../api";
import { useAdmin } from "../context";
import { downloadServerCsv, exportLabel, jsonPage } from "../export";
import { AgentLink, MerchantLink, TxLink } from "../links";
import { Amount, Loaded, Mono, Time } from "../ui";

const STATUSES = ["open", "refunded", "dismissed", "all"] as const;
const PAGE_SIZE = 50;

export function FailedPage() {
  const { client, canAct } = useAdmin();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("open");
  const { sort, toggle } = useSortParam(["seen_at"]);
  const query = { status, ...(sort ? { sort: sortParam(sort) as "seen_at" } : {}) };
  const { cursor, list } = usePagedLoad(JSON.stringify(query), async (page) =>
    jsonPage(await client.dashboard.failed.query({ ...query, ...page, limit: PAGE_SIZE })),
  );
  const csv = useAction();
  const [resolving, setResolving] = useState<FailedPayment>();
  const [notice, setNotice] = useState<string>();
  return (
    <>
      <h1>Failed payments</h1>
      <p className="muted">
        Payments that moved money and bought nothing. Tollgate sends no money itself: refund by hand, then
        record it.
      </p>
      <StatusFilter
        statuses={STATUSES}
        status={status}
        onChange={setStatus}
        testId="failed-status"
        after={
          <button
            type="button"
            className="button button--secondary"
            onClick={() =>
              void csv.run(() =>
                downloadServerCsv("/api/dashboard/failed", query, "tollgate-failed-payments.csv"),
              )
            }
            disabled={csv.busy}
            data-testid="failed-export"
          >
            {exportLabel(csv.busy)}
          </button>
        }
      />
      <ProblemBanner problem={csv.problem} testId="export-problem" />
      <Notice message={notice} testId="failed-notice" />
      <Loaded load={list} what="failed payments">
        {(data) => (
          <PagedTable
            label="Failed"
            cursor={cursor}
            nextCursor={data.next_cursor}
            total={data.total}
            shown={data.failed.length}
            pageSize={PAGE_SIZE}
            sort={sort}
            onSort={toggle}
            caption={`${status} failed payments`}
            testId="failed-table"
            rows={data.failed}
            rowKey={(f) => f.id}
            empty="No failed payment here."
            columns={[
              { header: "Seen", cell: (f) => <Time at={f.seen_at} />, sortKey: "seen_at" },
              {
                header: "Kind",
                cell: (f) => (
                  <>
                    {`${f.kind} (${f.reason})`}
                    <div>
                      <Mono value={f.id} />
                    </div>
                  </>
                ),
              },
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
  return (
    <FormDialog
      title={`Resolve ${failed.id}`}
      onCancel={onCancel}
      testId="resolve-dialog"
      problemTestId="resolve-problem"
      submitLabel="Record"
      onSubmit={() =>
        client.dashboard.resolveFailed.mutate({
          id: failed.id,
          resolution,
          note,
          ...(resolution === "refunded" && hash ? { refund_tx_hash: hash } : {}),
        })
      }
      onDone={() => onDone(`Recorded ${failed.id} as ${resolution}.`)}
    >
      {(errors) => (
        <>
          <label htmlFor="resolution">Resolution</label>
          <select
            id="resolution"
            value={resolution}
            onChange={(event) => setResolution(event.target.value as typeof resolution)}
          >
            <option value="refunded">refunded</option>
            <option value="dismissed">dismissed</option>
          </select>
          <TextAreaField
            id="resolve-note"
            label="Note"
            value={note}
            onChange={setNote}
            errors={errors}
            path="note"
          />
          {resolution === "refunded" ? (
            <>
              <label htmlFor="refund-hash">Refund transaction hash (optional)</label>
              <input id="refund-hash" value={hash} onChange={(event) => setHash(event.target.value)} />
              {errorFor(errors, "refund_tx_hash") ? (
                <p className="field__error">{errorFor(errors, "refund_tx_hash")}</p>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </FormDialog>
  );
}
