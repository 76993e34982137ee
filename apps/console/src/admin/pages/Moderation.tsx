/**
 * Marketplace moderation (docs/decisions/0067-listing-revisions.md): each listing's live revision beside its pending
 * one; approve or reject the pending revision (the decision names it, so an edit made meanwhile answers 409);
 * unpublish an approved listing with a reason the merchant sees, republish a suspended one.
 */
import { useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { RevisionDiff } from "../../features/listings/RevisionDiff";
import { useAction } from "../../hooks/useAction";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { ActionButton } from "../../ui/ActionButton";
import { FormDialog, TextAreaField } from "../../ui/Dialog";
import { StatusFilter } from "../../ui/Filters";
import { LiveStatus } from "../../ui/LiveStatus";
import { PagedTable } from "../../ui/Pager";
import type { ModerationListing } from "../api";
import { useAdmin } from "../context";
import { MerchantLink } from "../links";
import { Loaded, Time } from "../ui";

const STATUSES = ["pending", "approved", "suspended", "rejected"] as const;
const WRAP = { overflowWrap: "anywhere" } as const;

export function ModerationPage() {
  const { client, canAct } = useAdmin();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("pending");
  const { cursor, list: queue } = usePagedLoad(status, (page) =>
    client.admin.marketplace.queue.query({ status, limit: 25, ...page }),
  );
  const [rejecting, setRejecting] = useState<ModerationListing>();
  const [suspending, setSuspending] = useState<ModerationListing>();
  const action = useAction({ keepNotice: true });
  const approve = (listing: ModerationListing, revisionId: string) =>
    action.run(async () => {
      await client.admin.marketplace.approve.mutate({ id: listing.id, revision_id: revisionId });
      void queue.reload();
      return listing.status === "suspended"
        ? `Approved “${listing.title}”: it stays unpublished until you republish it.`
        : `Approved “${listing.title}”: it is in the public marketplace feed now.`;
    });
  const republish = (listing: ModerationListing) =>
    action.run(async () => {
      await client.admin.marketplace.republish.mutate({ id: listing.id });
      void queue.reload();
      return `Republished “${listing.title}”: its live revision is public again.`;
    });

  return (
    <>
      <h1>Marketplace moderation</h1>
      <LiveStatus load={queue} />
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
                header: "Listing",
                cell: (l) => (
                  <span style={WRAP}>
                    <strong data-testid={`listing-title-${l.id}`}>{l.title}</strong>
                    <br />
                    {l.merchant_name} <MerchantLink id={l.merchant_id} />
                  </span>
                ),
              },
              {
                header: "State",
                cell: (l) => (
                  <span style={WRAP} data-testid={`listing-state-${l.id}`}>
                    {l.status}
                    {l.suspension_reason ? `: ${l.suspension_reason}` : ""}
                    {l.rejection_reason ? ` (last revision rejected: ${l.rejection_reason})` : ""}
                  </span>
                ),
              },
              {
                header: "Live and pending revision",
                cell: (l) => (
                  <RevisionDiff live={l.live_revision} pending={l.pending_revision} testId={`diff-${l.id}`} />
                ),
              },
              { header: "Updated", cell: (l) => <Time at={l.updated_at} /> },
              {
                header: "Decision",
                cell: (l) => (
                  <DecisionButtons
                    listing={l}
                    busy={action.busy}
                    canAct={canAct}
                    onApprove={(revisionId) => approve(l, revisionId)}
                    onReject={() => setRejecting(l)}
                    onUnpublish={() => setSuspending(l)}
                    onRepublish={() => republish(l)}
                  />
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
      {suspending ? (
        <SuspendDialog
          listing={suspending}
          onCancel={() => setSuspending(undefined)}
          onDone={() => {
            action.setNotice(`Unpublished “${suspending.title}”: it is gone from every public surface.`);
            setSuspending(undefined);
            queue.reload();
          }}
        />
      ) : null}
    </>
  );
}

/** What an operator can decide about one listing: its pending revision, and whether it is public. */
function DecisionButtons({
  listing: l,
  busy,
  canAct,
  onApprove,
  onReject,
  onUnpublish,
  onRepublish,
}: {
  listing: ModerationListing;
  busy: boolean;
  canAct: boolean;
  onApprove: (revisionId: string) => void;
  onReject: () => void;
  onUnpublish: () => void;
  onRepublish: () => void;
}) {
  const pending = l.pending_revision;
  return (
    <span className="actions">
      {pending ? (
        <>
          <ActionButton
            busy={busy}
            disabled={!canAct}
            onClick={() => onApprove(pending.id)}
            testId={`approve-${l.id}`}
            label={`Approve revision ${pending.number} of ${l.title}`}
          >
            Approve
          </ActionButton>
          <button
            type="button"
            className="button button--danger"
            disabled={!canAct}
            onClick={onReject}
            data-testid={`reject-${l.id}`}
            aria-label={`Reject ${l.title}`}
          >
            Reject…
          </button>
        </>
      ) : null}
      {l.status === "approved" ? (
        <button
          type="button"
          className="button button--danger"
          disabled={!canAct}
          onClick={onUnpublish}
          data-testid={`unpublish-${l.id}`}
          aria-label={`Unpublish ${l.title}`}
        >
          Unpublish…
        </button>
      ) : null}
      {l.status === "suspended" ? (
        <ActionButton
          busy={busy}
          disabled={!canAct}
          onClick={onRepublish}
          testId={`republish-${l.id}`}
          label={`Republish ${l.title}`}
        >
          Republish
        </ActionButton>
      ) : null}
    </span>
  );
}

function SuspendDialog({
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
      title={`Unpublish “${listing.title}”?`}
      onCancel={onCancel}
      testId="suspend-dialog"
      problemTestId="suspend-problem"
      listFieldErrors
      submitLabel="Unpublish"
      submitClassName="button button--danger"
      submitTestId="suspend-confirm"
      onSubmit={() => client.admin.marketplace.suspend.mutate({ id: listing.id, reason })}
      onDone={onDone}
    >
      {() => (
        <TextAreaField
          id="suspend-reason"
          label="Reason (shown to the merchant)"
          value={reason}
          onChange={setReason}
          testId="suspend-reason"
        />
      )}
    </FormDialog>
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
        client.admin.marketplace.reject.mutate({
          id: listing.id,
          revision_id: listing.pending_revision?.id ?? "",
          reason,
        })
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
