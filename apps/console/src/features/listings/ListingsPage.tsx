import { LISTING_CATEGORIES } from "@tollgate/shared";
import { useState } from "react";
import { Field } from "../../components/Field";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { errorFor, type FormProblem } from "../../lib/errors";
import type { Listing, MerchantApi, MerchantProfile } from "../../lib/trpc";
import { type Column, DataTable } from "../../ui/Table";
import { Loaded } from "../common/States";
import { RevisionDiff } from "./RevisionDiff";

type Draft = {
  route: string;
  title: string;
  category: (typeof LISTING_CATEGORIES)[number];
  tier: string;
  description: string;
};
const EMPTY: Draft = { route: "", title: "", category: "search", tier: "standard", description: "" };

/**
 * Marketplace listings (docs/marketplace.md): create, edit, status with the rejection or suspension reason, the
 * live revision beside the pending one, resubmit.
 */
export function ListingsPage({ api, merchant }: { api: MerchantApi; merchant: MerchantProfile }) {
  const id = merchant.merchant_id;
  const listings = useLoad(() => api.listListings(id));
  const [editing, setEditing] = useState<Listing | undefined>();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const { busy, problem, notice, run, setNotice } = useAction();

  /** Every change reloads the list, still busy, so the table shows it when the buttons come back. */
  const act = (what: () => Promise<void>) =>
    run(async () => {
      await what();
      await listings.reload();
    });

  function edit(listing: Listing) {
    setEditing(listing);
    setDraft({
      route: listing.route,
      title: listing.title,
      category: listing.category,
      tier: listing.tier,
      description: listing.description ?? "",
    });
  }

  const columns = listingColumns({
    busy,
    onEdit: edit,
    onResubmit: (listing) =>
      void act(async () => {
        await api.updateListing({ id, listing_id: listing.id, title: listing.title });
        setNotice("Resubmitted for review.");
      }),
  });
  const save = () =>
    void act(async () => {
      const content = {
        route: draft.route.trim(),
        title: draft.title.trim(),
        category: draft.category,
        // Blank: the merchant's default tier (docs/decisions/0067-listing-revisions.md).
        ...(draft.tier.trim() ? { tier: draft.tier.trim() } : {}),
        ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
      };
      if (editing) {
        await api.updateListing({ id, listing_id: editing.id, ...content });
        setNotice("Saved: the new revision waits for review.");
      } else {
        await api.createListing({ id, ...content });
        setNotice("Listing created: it waits for review.");
      }
      setEditing(undefined);
      setDraft(EMPTY);
    });
  return (
    <section aria-labelledby="listings-heading" data-testid="listings-page">
      <h1 id="listings-heading">Marketplace listings</h1>
      <ProblemBanner problem={problem} testId="listings-problem" />
      <Notice message={notice} testId="listings-notice" />
      <div className="grid">
        <section className="card card--wide" aria-labelledby="listings-list-heading">
          <h2 id="listings-list-heading">Your listings</h2>
          <Loaded load={listings} what="listings" testId="listings">
            {(rows) => (
              <DataTable
                testId="listings-table"
                rows={rows}
                rowKey={(listing) => listing.id}
                columns={columns}
                empty={
                  <p className="muted" data-testid="listings-empty">
                    No listings yet. An operator reviews each one before the public feed shows it.
                  </p>
                }
              />
            )}
          </Loaded>
        </section>
        <ListingForm
          editing={editing}
          draft={draft}
          onDraftChange={setDraft}
          busy={busy}
          problem={problem}
          onSubmit={save}
          onCancel={() => {
            setEditing(undefined);
            setDraft(EMPTY);
          }}
        />
      </div>
    </section>
  );
}

/** The listings table: status with the rejection reason, edit, and resubmit for a rejected listing. */
function listingColumns({
  busy,
  onEdit,
  onResubmit,
}: {
  busy: boolean;
  onEdit: (listing: Listing) => void;
  onResubmit: (listing: Listing) => void;
}): Column<Listing>[] {
  return [
    { header: "Title", cell: (listing) => listing.title },
    { header: "Route", cell: (listing) => <code>{listing.route}</code> },
    {
      header: "Status",
      cellTestId: (listing) => `listing-status-${listing.id}`,
      cell: (listing) => (
        <>
          {listing.status} (revision {listing.revision})
          {listing.suspension_reason ? (
            <span
              className="field__error"
              style={{ overflowWrap: "anywhere" }}
              data-testid={`listing-suspension-${listing.id}`}
            >
              {" "}
              Unpublished by an operator: {listing.suspension_reason}
            </span>
          ) : null}
          {listing.rejection_reason ? (
            <span
              className="field__error"
              style={{ overflowWrap: "anywhere" }}
              data-testid={`listing-reason-${listing.id}`}
            >
              {" "}
              Reason: {listing.rejection_reason}
            </span>
          ) : null}
        </>
      ),
    },
    {
      header: "Live and pending",
      cell: (listing) => (
        <RevisionDiff
          live={listing.live_revision}
          pending={listing.pending_revision}
          testId={`listing-diff-${listing.id}`}
        />
      ),
    },
    {
      header: "Actions",
      cell: (listing) => (
        <>
          <button
            type="button"
            className="button button--quiet"
            onClick={() => onEdit(listing)}
            aria-label={`Edit ${listing.title}`}
          >
            Edit
          </button>
          {listing.status === "rejected" ? (
            <button
              type="button"
              className="button button--secondary"
              disabled={busy}
              data-testid={`listing-resubmit-${listing.id}`}
              aria-label={`Resubmit ${listing.title}`}
              onClick={() => onResubmit(listing)}
            >
              Resubmit
            </button>
          ) : null}
        </>
      ),
    },
  ];
}

/** The new-listing form, or the edit form of `editing` (a saved edit is a new revision to review). */
function ListingForm({
  editing,
  draft,
  onDraftChange,
  busy,
  problem,
  onSubmit,
  onCancel,
}: {
  editing: Listing | undefined;
  draft: Draft;
  onDraftChange: (draft: Draft) => void;
  busy: boolean;
  problem: FormProblem | undefined;
  onSubmit: () => void;
  onCancel: () => void;
}) {
  const text = (key: "route" | "title" | "tier" | "description", label: string, hint?: string) => (
    <Field
      label={label}
      hint={hint}
      testId={`listing-${key}`}
      value={draft[key]}
      onChange={(e) => onDraftChange({ ...draft, [key]: e.target.value })}
      error={errorFor(problem?.errors ?? [], key)}
    />
  );
  return (
    <form
      className="card form"
      aria-labelledby="listing-form-heading"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <h2 id="listing-form-heading">{editing ? `Edit ${editing.title}` : "New listing"}</h2>
      {text("route", "Route", "e.g. /search")}
      {text("title", "Title")}
      <div className="field">
        <label htmlFor="listing-category">Category</label>
        <select
          id="listing-category"
          data-testid="listing-category"
          value={draft.category}
          onChange={(e) => onDraftChange({ ...draft, category: e.target.value as Draft["category"] })}
        >
          {LISTING_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
      {text("tier", "Tier", "blank: your default tier (standard, else your cheapest)")}
      {text("description", "Description")}
      <div className="actions">
        <button type="submit" className="button" disabled={busy} data-testid="listing-submit">
          {editing ? "Save and resubmit" : "Create listing"}
        </button>
        {editing ? (
          <button type="button" className="button button--quiet" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
