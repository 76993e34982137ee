import { useState } from "react";
import { WebhookChart } from "../../charts/WebhookChart";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { type LoadHandle, useLoad } from "../../hooks/useLoad";
import { saveFile, toCsv } from "../../lib/csv";
import type { MerchantApi, MerchantProfile, WebhookDeliveries } from "../../lib/trpc";
import { ActionButton, SubmitActions } from "../../ui/ActionButton";
import { CopyButton } from "../../ui/Copy";
import { DateRangeControl, type DateRangeState, useDateRange } from "../../ui/DateRange";
import { LiveStatus } from "../../ui/LiveStatus";
import { type Column, DataTable } from "../../ui/Table";
import { Loaded, OnceSecret, RefreshButton } from "../common/States";
import { WebhookUrlField } from "../merchant/MerchantFields";

type Delivery = WebhookDeliveries["deliveries"][number];

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: "Created", cell: (row) => row.created_at.slice(0, 19).replace("T", " ") },
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
];

const DELIVERY_CSV_HEADER = [
  "created_at",
  "event_id",
  "type",
  "status",
  "attempts",
  "last_status",
  "last_error",
  "last_attempt_at",
  "delivered_at",
  "next_attempt_at",
] as const;

/** The deliveries listed as CSV (RFC 4180, formula cells neutralised; decision 0072). */
export function deliveriesCsv(deliveries: readonly Delivery[]): string {
  return toCsv(
    DELIVERY_CSV_HEADER,
    deliveries.map((row) => DELIVERY_CSV_HEADER.map((column) => row[column])),
  );
}

/** Webhooks: URL, signing secret (shown once), a test event, and the latest deliveries. */
export function WebhooksPage({
  api,
  merchant,
  onSaved,
}: {
  api: MerchantApi;
  merchant: MerchantProfile;
  onSaved: (merchant: MerchantProfile) => void;
}) {
  const id = merchant.merchant_id;
  const [url, setUrl] = useState(merchant.webhook_url ?? "");
  const [secret, setSecret] = useState<string>();
  const { busy, problem, notice, run, setNotice } = useAction();
  // The read takes "the last N days" only, as the dashboard's does: presets, no custom pair (decision 0073).
  const dates = useDateRange({ allowCustom: false });
  const days = dates.range.days;
  const deliveries = useLoad(() => api.webhookDeliveries(id, days), String(days));

  return (
    <section aria-labelledby="webhooks-heading" data-testid="webhooks-page">
      <h1 id="webhooks-heading">Webhooks</h1>
      <ProblemBanner problem={problem} testId="webhooks-problem" />
      <Notice message={notice} testId="webhooks-notice" />
      {secret ? (
        <OnceSecret label="Webhook signing secret" value={secret} testId="webhook-secret-value" />
      ) : null}
      <div className="grid">
        <form
          className="card form"
          aria-labelledby="webhook-url-heading"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              const saved = await api.update({ id, webhook_url: url.trim() === "" ? null : url.trim() });
              onSaved(saved);
              setNotice("Webhook URL saved.");
            });
          }}
        >
          <h2 id="webhook-url-heading">Endpoint</h2>
          <WebhookUrlField
            label="Webhook URL"
            hint="Empty removes it."
            testId="webhook-url"
            value={url}
            onChange={setUrl}
            errors={problem?.errors ?? []}
          />
          <SubmitActions busy={busy} testId="webhook-url-save" label="Save URL" />
        </form>
        <SigningSecretCard
          busy={busy}
          hasSecret={Boolean(deliveries.data?.endpoint)}
          onRotate={() =>
            run(async () => {
              const result = await api.webhookSecret(id);
              setSecret(result.secret);
              setNotice(result.rotated ? "Webhook secret rotated." : "Webhook secret created.");
              await deliveries.reload();
            })
          }
          onTest={() =>
            run(async () => {
              const result = await api.sendTestWebhook(id);
              setNotice(`Test event ${result.event_id} queued.`);
              await deliveries.reload();
            })
          }
        />
        <SuccessCard deliveries={deliveries} dates={dates} />
        <DeliveriesCard deliveries={deliveries} />
      </div>
    </section>
  );
}

/** Creates or rotates the signing secret, and queues a test event. */
function SigningSecretCard({
  busy,
  hasSecret,
  onRotate,
  onTest,
}: {
  busy: boolean;
  /** The merchant has an endpoint, so a secret exists and the button rotates it. */
  hasSecret: boolean;
  onRotate: () => Promise<unknown>;
  onTest: () => Promise<unknown>;
}) {
  return (
    <section className="card" aria-labelledby="webhook-secret-heading">
      <h2 id="webhook-secret-heading">Signing secret and test</h2>
      <p>
        Events are signed (Standard Webhooks). After a rotation the previous secret keeps signing for 24
        hours, so receivers can switch without losing events.
      </p>
      <div className="actions">
        <ActionButton busy={busy} testId="webhook-secret-rotate" onClick={onRotate}>
          {hasSecret ? "Rotate secret" : "Create secret"}
        </ActionButton>
        <ActionButton busy={busy} className="button button--secondary" testId="webhook-test" onClick={onTest}>
          Send test event
        </ActionButton>
      </div>
    </section>
  );
}

/** Deliveries over the chosen days and their success rate, drawn (decision 0078). */
function SuccessCard({
  deliveries,
  dates,
}: {
  deliveries: LoadHandle<WebhookDeliveries>;
  dates: DateRangeState;
}) {
  return (
    <section className="card card--wide" aria-labelledby="webhook-success-heading">
      <h2 id="webhook-success-heading">Success over time</h2>
      <DateRangeControl state={dates} testId="webhooks-range" />
      <Loaded load={deliveries} what="the delivery series" testId="webhook-series">
        {(data) => <WebhookChart series={data.series} />}
      </Loaded>
    </section>
  );
}

/** The endpoint's state and its latest deliveries, read again on demand. */
function DeliveriesCard({ deliveries }: { deliveries: LoadHandle<WebhookDeliveries> }) {
  return (
    <section className="card card--wide" aria-labelledby="deliveries-heading">
      <div className="section-head">
        <h2 id="deliveries-heading">Latest deliveries</h2>
        <RefreshButton load={deliveries} testId="deliveries-refresh" className="button button--quiet" />
      </div>
      <LiveStatus load={deliveries} />
      <Loaded load={deliveries} what="deliveries" testId="deliveries">
        {(data) => (
          <>
            <p data-testid="webhook-endpoint-status">
              {data.endpoint
                ? `Endpoint ${data.endpoint.status}${data.endpoint.disabled_reason ? ` (${data.endpoint.disabled_reason})` : ""}`
                : "No signing secret yet: create one to receive events."}
            </p>
            {data.deliveries.length > 0 ? (
              <button
                type="button"
                className="button button--secondary"
                onClick={() => saveFile(deliveriesCsv(data.deliveries), "tollgate-webhook-deliveries.csv")}
                data-testid="deliveries-export"
              >
                Export CSV ({data.deliveries.length})
              </button>
            ) : null}
            <DataTable
              testId="deliveries-table"
              rows={data.deliveries}
              rowKey={(row) => row.event_id}
              rowTestId={(row) => `delivery-${row.event_id}`}
              columns={DELIVERY_COLUMNS}
              empty={
                <p className="muted" data-testid="deliveries-empty">
                  No deliveries yet.
                </p>
              }
            />
          </>
        )}
      </Loaded>
    </section>
  );
}
