/**
 * The merchant's webhook deliveries (decision 0083): in the page's date range, filtered by status and event type,
 * sorted by creation time either way (`sort` in the URL), paged with the exact total, exported as the API's CSV.
 */
import type { Cursor } from "../../hooks/useCursor";
import type { LoadHandle } from "../../hooks/useLoad";
import type { FormProblem } from "../../lib/errors";
import type { WebhookDeliveries, WebhookDeliveriesQuery } from "../../lib/trpc";
import { CopyButton } from "../../ui/Copy";
import { anyOption, SelectFilter } from "../../ui/Filters";
import { LiveStatus } from "../../ui/LiveStatus";
import { Pager } from "../../ui/Pager";
import { type Column, DataTable } from "../../ui/Table";
import { Loaded, RefreshButton } from "../common/States";
import { Time } from "../lists/cells";
import { ListFrame } from "../lists/ListControls";
import type { MerchantListState } from "../lists/useMerchantList";

type Delivery = WebhookDeliveries["deliveries"][number];
type EventType = NonNullable<WebhookDeliveriesQuery["type"]>;

export const DELIVERY_PAGE_SIZE = 50;
export const DELIVERY_SORT_KEYS = ["created_at"] as const;
export const DELIVERY_FILTERS = ["status", "type"] as const;
const STATUSES = ["", "pending", "delivered", "failed", "dead"] as const;
/** Every event type the API filters on; a Record so a type the API adds fails the build until it is listed. */
const EVENT_TYPES: Record<EventType, true> = {
  "settlement.confirmed": true,
  "settlement.reverted": true,
  "receipt.issued": true,
  "receipt.suspended": true,
  "receipt.reinstated": true,
  "receipt.revoked": true,
  "test.ping": true,
  "listing.approved": true,
  "listing.rejected": true,
  "merchant.payout_changed": true,
};
const TYPE_OPTIONS = ["", ...Object.keys(EVENT_TYPES)];

export const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: "Created", cell: (row) => <Time at={row.created_at} />, sortKey: "created_at" },
  {
    header: "Event",
    cell: (row) => (
      <>
        {row.type} <code>{row.event_id}</code>
        <CopyButton value={row.event_id} what="event id" />
      </>
    ),
  },
  { header: "Status", cell: (row) => row.status, cellTestId: (row) => `delivery-status-${row.event_id}` },
  { header: "Attempts", cell: (row) => row.attempts, numeric: true },
  { header: "Last answer", cell: (row) => row.last_status ?? row.last_error ?? "—" },
  { header: "Next attempt", cell: (row) => <Time at={row.next_attempt_at} /> },
];

/** The endpoint's state, the filters and export, and one page of deliveries, read again on demand. */
export function DeliveriesCard({
  list,
  cursor,
  page,
  exporting,
  exportProblem,
  onExport,
}: {
  list: MerchantListState;
  cursor: Cursor;
  page: LoadHandle<WebhookDeliveries>;
  exporting: boolean;
  exportProblem: FormProblem | undefined;
  onExport: () => void;
}) {
  const { filters } = list;
  return (
    <section className="card card--wide" aria-labelledby="deliveries-heading">
      <div className="section-head">
        <h2 id="deliveries-heading">Deliveries</h2>
        <RefreshButton load={page} testId="deliveries-refresh" className="button button--quiet" />
      </div>
      <LiveStatus load={page} />
      <ListFrame
        list={list}
        testId="deliveries"
        formKey={`${filters.status ?? ""}:${filters.type ?? ""}`}
        range={false}
        exporting={exporting}
        exportProblem={exportProblem}
        onExport={onExport}
      >
        <SelectFilter
          label="Status"
          name="status"
          defaultValue={filters.status ?? ""}
          options={STATUSES}
          optionLabel={anyOption}
          testId="deliveries-status"
        />
        <SelectFilter
          label="Event"
          name="type"
          defaultValue={filters.type ?? ""}
          options={TYPE_OPTIONS}
          optionLabel={anyOption}
          testId="deliveries-type"
        />
      </ListFrame>
      <Loaded load={page} what="deliveries" testId="deliveries">
        {(data) => (
          <>
            <p data-testid="webhook-endpoint-status">
              {data.endpoint
                ? `Endpoint ${data.endpoint.status}${data.endpoint.disabled_reason ? ` (${data.endpoint.disabled_reason})` : ""}`
                : "No signing secret yet: create one to receive events."}
            </p>
            <DataTable
              caption="Webhook deliveries"
              testId="deliveries-table"
              rows={data.deliveries}
              rowKey={(row) => row.event_id}
              rowTestId={(row) => `delivery-${row.event_id}`}
              columns={DELIVERY_COLUMNS}
              sort={list.sort}
              onSort={list.toggle}
              empty={
                <p className="muted" data-testid="deliveries-empty">
                  No deliveries in this range and filter.
                </p>
              }
            />
            <Pager
              label="Deliveries"
              cursor={cursor}
              nextCursor={data.next_cursor}
              total={data.total}
              shown={data.deliveries.length}
              pageSize={DELIVERY_PAGE_SIZE}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}
