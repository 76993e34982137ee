/**
 * Webhooks dashboard: success over time in the one date range (optionally of one merchant; decision 0078), totals,
 * endpoints with their success rate (sorted by merchant id or creation either way,
 * `sort` in the URL, with the exact total and the API's CSV of every page: decision 0077), dead letters with a
 * replay button.
 */
import { useSearchParams } from "react-router";
import { WebhookChart } from "../../charts/WebhookChart";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { ActionButton } from "../../ui/ActionButton";
import { DateRangeControl, useDateRange } from "../../ui/DateRange";
import { FilterForm, TextFilter } from "../../ui/Filters";
import { LiveStatus } from "../../ui/LiveStatus";
import { PagedTable } from "../../ui/Pager";
import { Table } from "../../ui/Table";
import type { WebhooksDashboard } from "../api";
import { useAdmin } from "../context";
import { downloadServerCsv, exportLabel, jsonPage } from "../export";
import { MerchantLink } from "../links";
import { Loaded, Mono, Stat, Time } from "../ui";

const PAGE_SIZE = 50;
const rate = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(1)} %`);

export function WebhooksPage() {
  const { client, canAct } = useAdmin();
  const { sort, toggle } = useSortParam(["merchant_id", "created_at"], "asc");
  const query: { sort?: "merchant_id" | "created_at" } = sort
    ? { sort: sortParam(sort) as "merchant_id" | "created_at" }
    : {};
  const dates = useDateRange();
  const { from, to } = dates.range;
  const [params, setParams] = useSearchParams();
  const merchant = params.get("merchant") ?? "";
  const { cursor, list: data } = usePagedLoad(
    `webhooks:${query.sort ?? ""}:${from}:${to}:${merchant}`,
    async (page) =>
      jsonPage(
        await client.dashboard.webhooks.query({
          ...query,
          ...page,
          limit: PAGE_SIZE,
          from,
          to,
          ...(merchant ? { merchant_id: merchant } : {}),
        }),
      ),
  );
  const filterMerchant = (values: Record<string, string>) => {
    const next = new URLSearchParams(params);
    if (values.merchant) next.set("merchant", values.merchant);
    else next.delete("merchant");
    setParams(next);
  };
  const csv = useAction();
  const action = useAction({ keepNotice: true });
  const replay = (eventId: string) =>
    action.run(async () => {
      const result = await client.dashboard.replayWebhook.mutate({ event_id: eventId });
      void data.reload();
      return `Queued ${result.event_id} again (was ${result.previous_status}); the merchant sees the same webhook-id.`;
    });
  return (
    <>
      <h1>Webhooks</h1>
      <LiveStatus load={data} />
      <ProblemBanner problem={action.problem} testId="replay-problem" />
      <Notice message={action.notice} testId="replay-notice" />
      <DateRangeControl state={dates} />
      <MerchantFilter merchant={merchant} onApply={filterMerchant} />
      <Loaded load={data} what="webhook health">
        {(d) => (
          <>
            <section className="section" aria-labelledby="trend-title">
              <h2 id="trend-title">Success over time{merchant ? ` for ${merchant}` : ", all merchants"}</h2>
              <WebhookChart series={d.series} />
            </section>
            <div className="stats">
              <Stat label="Delivered" value={d.totals.delivered} />
              <Stat label="Pending" value={d.totals.pending} />
              <Stat label="Failed (retrying)" value={d.totals.failed} />
              <Stat label="Dead" value={d.totals.dead} />
              <Stat label="Success rate" value={rate(d.totals.success_rate)} />
            </div>
            <DeadLetters letters={d.dead_letters} busy={action.busy} canAct={canAct} onReplay={replay} />
            <section className="section" aria-labelledby="endpoints-title">
              <h2 id="endpoints-title">Endpoints</h2>
              <div className="filters">
                <button
                  type="button"
                  className="button button--secondary"
                  onClick={() =>
                    void csv.run(() =>
                      downloadServerCsv("/api/dashboard/webhooks", query, "tollgate-webhook-endpoints.csv"),
                    )
                  }
                  disabled={csv.busy}
                  data-testid="webhooks-export"
                >
                  {exportLabel(csv.busy)}
                </button>
              </div>
              <ProblemBanner problem={csv.problem} testId="export-problem" />
              <PagedTable
                label="Endpoints"
                cursor={cursor}
                nextCursor={d.next_cursor}
                total={d.total}
                shown={d.endpoints.length}
                pageSize={PAGE_SIZE}
                sort={sort}
                onSort={toggle}
                caption="Webhook endpoints"
                testId="webhook-endpoints"
                rows={d.endpoints}
                rowKey={(e) => e.merchant_id}
                empty="No webhook endpoint."
                columns={[
                  {
                    header: "Merchant",
                    cell: (e) => <MerchantLink id={e.merchant_id} />,
                    sortKey: "merchant_id",
                  },
                  { header: "Created", cell: (e) => <Time at={e.created_at} />, sortKey: "created_at" },
                  {
                    header: "Status",
                    cell: (e) => `${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ""}`,
                  },
                  { header: "Delivered", cell: (e) => e.deliveries.delivered, numeric: true },
                  { header: "Dead", cell: (e) => e.deliveries.dead, numeric: true },
                  { header: "Success", cell: (e) => rate(e.success_rate), numeric: true },
                ]}
              />
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}

type DeadLetter = WebhooksDashboard["dead_letters"][number];

/** The newest dead deliveries, each with its replay button (SPEC §4.3). */
function DeadLetters({
  letters,
  busy,
  canAct,
  onReplay,
}: {
  letters: DeadLetter[];
  busy: boolean;
  canAct: boolean;
  onReplay: (eventId: string) => void;
}) {
  return (
    <section className="section" aria-labelledby="dead-title">
      <h2 id="dead-title">Dead letters</h2>
      <Table
        caption="Newest dead deliveries"
        testId="dead-letters"
        rows={letters}
        rowKey={(l) => l.event_id}
        empty="No dead letters."
        columns={[
          { header: "Event", cell: (l) => <Mono value={l.event_id} /> },
          { header: "Merchant", cell: (l) => <MerchantLink id={l.merchant_id} /> },
          { header: "Type", cell: (l) => l.type },
          { header: "Attempts", cell: (l) => l.attempts, numeric: true },
          { header: "Last error", cell: (l) => `${l.last_status ?? ""} ${l.last_error ?? ""}` },
          { header: "Last attempt", cell: (l) => <Time at={l.last_attempt_at} /> },
          {
            header: "Replay",
            cell: (l) => (
              <ActionButton
                busy={busy}
                disabled={!canAct}
                onClick={() => onReplay(l.event_id)}
                label={`Replay ${l.event_id}`}
              >
                Replay
              </ActionButton>
            ),
          },
        ]}
      />
    </section>
  );
}

/** Narrows the success chart to one merchant (`merchant` in the URL; decision 0078). */
function MerchantFilter({
  merchant,
  onApply,
}: {
  merchant: string;
  onApply: (values: Record<string, string>) => void;
}) {
  return (
    <FilterForm onApply={onApply} submitTestId="webhook-merchant-apply" testId="webhook-merchant-filter">
      <TextFilter
        key={merchant}
        label="Merchant id"
        name="merchant"
        defaultValue={merchant}
        placeholder="mrch_… (all when empty)"
        testId="webhook-merchant"
      />
    </FilterForm>
  );
}
