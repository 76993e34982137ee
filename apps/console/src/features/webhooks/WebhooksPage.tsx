/**
 * Webhooks: URL, signing secret (shown once), a test event, deliveries over the chosen days (decision 0078) and the
 * paged deliveries list (decision 0083). One read answers the list's page, the endpoint's state and the series.
 */
import { useState } from "react";
import { WebhookChart } from "../../charts/WebhookChart";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import type { LoadHandle } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import type { MerchantApi, MerchantProfile, WebhookDeliveries, WebhookDeliveriesQuery } from "../../lib/trpc";
import { ActionButton, SubmitActions } from "../../ui/ActionButton";
import { DateRangeControl, type DateRangeState } from "../../ui/DateRange";
import { Loaded, OnceSecret } from "../common/States";
import { exportListCsv } from "../lists/exportCsv";
import { useMerchantList } from "../lists/useMerchantList";
import { WebhookUrlField } from "../merchant/MerchantFields";
import { DELIVERY_FILTERS, DELIVERY_PAGE_SIZE, DELIVERY_SORT_KEYS, DeliveriesCard } from "./DeliveriesCard";

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
  // The series takes "the last N days" only, as the dashboard's does: presets, no custom pair (decision 0073); the
  // list's from/to are the same days, so chart and list show one window.
  const list = useMerchantList(DELIVERY_SORT_KEYS, { filterNames: DELIVERY_FILTERS, allowCustom: false });
  const days = list.dates.range.days;
  const { cursor, list: deliveries } = usePagedLoad(list.key, (at) =>
    // Filter values come from the URL; the API validates them (400 validation_failed names the field).
    api.webhookDeliveries({
      id,
      ...list.query,
      ...at,
      limit: DELIVERY_PAGE_SIZE,
      days,
    } as WebhookDeliveriesQuery),
  );
  const csv = useAction();

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
        <SuccessCard deliveries={deliveries} dates={list.dates} />
        <DeliveriesCard
          list={list}
          cursor={cursor}
          page={deliveries}
          exporting={csv.busy}
          exportProblem={csv.problem}
          onExport={() => void csv.run(() => exportListCsv(api, "webhooks/deliveries", id, list.query))}
        />
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
