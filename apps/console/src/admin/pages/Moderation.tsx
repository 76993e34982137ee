/** Marketplace moderation queue: approve, or reject with a reason; approved listings reach the feed. */
import { useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { ActionButton } from "../../ui/ActionButton";
import { FormDialog, TextAreaField } from "../../ui/Dialog";
import { StatusFilter } from "../../ui/Filters";
import { PagedTable } from "../../ui/Pager";
import type { ModerationListing } from "../api";
import { useAdmin } from "../context";
import { MerchantLink } from "../links";
import { Loaded, Time } from "../ui";

const STATUSES = ["pending", "approved", "rejected"] as const;

export function ModerationPage() {
  const { client, canAct } = useAdmin();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("pending");
  const { cursor, list: queue } = usePagedLoad(status, (page) =>
    client.admin.marketplace.queue.query({ status, limit: 25, ...page }),
  );
  const [rejecting, setRejecting] = useState<ModerationListing>();
  const action = useAction({ keepNotice: true });
  const approve = (listing: ModerationListing) =>
    action.run(async () => {
      await client.admin.marketplace.approve.mutate({ id: listing.id, revision: listing.revision });
      void queue.reload();
      return `Approved “${listing.title}”: it is in the public marketplace feed now.`;
    });

  return (
    <>
      <h1>Marketplace moderation</h1>
      <StatusFilter statuses={STATUSES} status={status} onChange={setStatus} testId="queue-status" />
      <ProblemBanner problem={action.problem} testId="moderation-problem" />
      <Notice message={action.notice} testId="moderation-notice" />
      <Loaded load={queue} what="the queue">
        {(data) => (
          <PagedTable
            label="Listings"
            cursor={cursor}
            nextCursor={data.next_cursor}
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
                      <ActionButton
                        busy={action.busy}
                        disabled={!canAct}
                        onClick={() => approve(l)}
                        testId={`approve-${l.id}`}
                        label={`Approve ${l.title}`}
                      >
                        Approve
                      </ActionButton>
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
        )}
      </Loaded>
      {rejecting ? (
        <RejectDialog
          listing={rejecting}
          onCancel={() => setRejecting(undefined)}
          onDone={() => {
            action.setNotice(`Rejected “${rejecting.title}”: the merchant sees the reason.`);
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
  return (
    <FormDialog
      title={`Reject “${listing.title}”?`}
      onCancel={onCancel}
      testId="reject-dialog"
      problemTestId="reject-problem"
      listFieldErrors
      submitLabel="Reject"
      submitClassName="button button--danger"
      submitTestId="reject-confirm"
      onSubmit={() =>
        client.admin.marketplace.reject.mutate({ id: listing.id, revision: listing.revision, reason })
      }
      onDone={onDone}
    >
      {() => (
        <TextAreaField
          id="reject-reason"
          label="Reason (shown to the merchant)"
          value={reason}
          onChange={setReason}
          testId="reject-reason"
        />
      )}
    </FormDialog>
  );
}
