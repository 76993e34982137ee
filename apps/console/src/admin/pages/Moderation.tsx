/** Marketplace moderation queue (issue 14): approve, or reject with a reason; approved listings reach the feed. */
import { type FormEvent, useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useCursor } from "../../hooks/useCursor";
import { useLoad } from "../../hooks/useLoad";
import { type FormProblem, toFormProblem } from "../../lib/errors";
import type { ModerationListing } from "../api";
import { useAdmin } from "../context";
import { MerchantLink } from "../links";
import { Dialog, Loaded, Pager, Table, Time } from "../ui";

const STATUSES = ["pending", "approved", "rejected"] as const;

export function ModerationPage() {
  const { client, canAct } = useAdmin();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("pending");
  const pager = useCursor(status);
  const queue = useLoad(
    () =>
      client.admin.marketplace.queue.query({
        status,
        limit: 25,
        ...(pager.cursor ? { cursor: pager.cursor } : {}),
      }),
    `${status}:${pager.cursor ?? ""}`,
  );
  const [rejecting, setRejecting] = useState<ModerationListing>();
  const [problem, setProblem] = useState<FormProblem>();
  const [notice, setNotice] = useState<string>();

  async function approve(listing: ModerationListing) {
    setProblem(undefined);
    try {
      await client.admin.marketplace.approve.mutate({ id: listing.id, revision: listing.revision });
      setNotice(`Approved “${listing.title}”: it is in the public marketplace feed now.`);
      queue.reload();
    } catch (error) {
      setProblem(toFormProblem(error));
    }
  }

  return (
    <>
      <h1>Marketplace moderation</h1>
      <div className="filters">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => setStatus(event.target.value as typeof status)}
            data-testid="queue-status"
          >
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      <ProblemBanner problem={problem} testId="moderation-problem" />
      <Notice message={notice} testId="moderation-notice" />
      <Loaded load={queue} what="the queue">
        {(data) => (
          <>
            <Table
              caption={`${status} listings`}
              testId="moderation-table"
              rows={data.listings}
              rowKey={(l) => l.id}
              empty={status === "pending" ? "Nothing waits for review." : `No ${status} listings.`}
              columns={[
                {
                  header: "Title",
                  cell: (l) => <strong data-testid={`listing-title-${l.id}`}>{l.title}</strong>,
                },
                {
                  header: "Merchant",
                  cell: (l) => (
                    <>
                      {l.merchant_name} <MerchantLink id={l.merchant_id} />
                    </>
                  ),
                },
                { header: "Route", cell: (l) => <code>{l.route}</code> },
                { header: "Category", cell: (l) => l.category },
                { header: "Description", cell: (l) => l.description ?? "—" },
                { header: "Rev.", cell: (l) => l.revision, numeric: true },
                { header: "Updated", cell: (l) => <Time at={l.updated_at} /> },
                {
                  header: "Decision",
                  cell: (l) =>
                    l.status === "pending" ? (
                      <span className="actions">
                        <button
                          type="button"
                          className="button"
                          disabled={!canAct}
                          onClick={() => approve(l)}
                          data-testid={`approve-${l.id}`}
                          aria-label={`Approve ${l.title}`}
                        >
                          Approve
                        </button>
                        <button
                          type="button"
                          className="button button--danger"
                          disabled={!canAct}
                          onClick={() => setRejecting(l)}
                          data-testid={`reject-${l.id}`}
                          aria-label={`Reject ${l.title}`}
                        >
                          Reject…
                        </button>
                      </span>
                    ) : (
                      <span>
                        {l.status}
                        {l.rejection_reason ? `: ${l.rejection_reason}` : ""}
                      </span>
                    ),
                },
              ]}
            />
            <Pager
              label="Listings"
              page={pager.page}
              nextCursor={data.next_cursor}
              onNext={pager.next}
              onPrevious={pager.previous}
            />
          </>
        )}
      </Loaded>
      {rejecting ? (
        <RejectDialog
          listing={rejecting}
          onCancel={() => setRejecting(undefined)}
          onDone={() => {
            setNotice(`Rejected “${rejecting.title}”: the merchant sees the reason.`);
            setRejecting(undefined);
            queue.reload();
          }}
        />
      ) : null}
    </>
  );
}

function RejectDialog({
  listing,
  onCancel,
  onDone,
}: {
  listing: ModerationListing;
  onCancel: () => void;
  onDone: () => void;
}) {
  const { client } = useAdmin();
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<FormProblem>();
  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await client.admin.marketplace.reject.mutate({ id: listing.id, revision: listing.revision, reason });
      onDone();
    } catch (error) {
      setProblem(toFormProblem(error));
    }
  }
  return (
    <Dialog title={`Reject “${listing.title}”?`} onCancel={onCancel} testId="reject-dialog">
      <ProblemBanner problem={problem} testId="reject-problem" extraErrors={problem?.errors} />
      <form onSubmit={submit}>
        <label htmlFor="reject-reason">Reason (shown to the merchant)</label>
        <textarea
          id="reject-reason"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          required
          data-testid="reject-reason"
        />
        <div className="actions">
          <button type="submit" className="button button--danger" data-testid="reject-confirm">
            Reject
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
