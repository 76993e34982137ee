/** Webhooks dashboard: totals, endpoints with their success rate, dead letters with a replay button. */
import { useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useCursor } from "../../hooks/useCursor";
import { useLoad } from "../../hooks/useLoad";
import { type FormProblem, toFormProblem } from "../../lib/errors";
import { useAdmin } from "../context";
import { MerchantLink } from "../links";
import { Loaded, Mono, Pager, Stat, Table, Time } from "../ui";

const rate = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(1)} %`);

export function WebhooksPage() {
  const { client, canAct } = useAdmin();
  const pager = useCursor("webhooks");
  const data = useLoad(
    () => client.dashboard.webhooks.query(pager.cursor ? { cursor: pager.cursor } : {}),
    pager.cursor ?? "",
  );
  const [problem, setProblem] = useState<FormProblem>();
  const [notice, setNotice] = useState<string>();
  async function replay(eventId: string) {
    setProblem(undefined);
    try {
      const result = await client.dashboard.replayWebhook.mutate({ event_id: eventId });
      setNotice(
        `Queued ${result.event_id} again (was ${result.previous_status}); the merchant sees the same webhook-id.`,
      );
      data.reload();
    } catch (error) {
      setProblem(toFormProblem(error));
    }
  }
  return (
    <>
      <h1>Webhooks</h1>
      <ProblemBanner problem={problem} testId="replay-problem" />
      <Notice message={notice} testId="replay-notice" />
      <Loaded load={data} what="webhook health">
        {(d) => (
          <>
            <div className="stats">
              <Stat label="Delivered" value={d.totals.delivered} />
              <Stat label="Pending" value={d.totals.pending} />
              <Stat label="Failed (retrying)" value={d.totals.failed} />
              <Stat label="Dead" value={d.totals.dead} />
              <Stat label="Success rate" value={rate(d.totals.success_rate)} />
            </div>
            <section className="section" aria-labelledby="dead-title">
              <h2 id="dead-title">Dead letters</h2>
              <Table
                caption="Newest dead deliveries"
                testId="dead-letters"
                rows={d.dead_letters}
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
                      <button
                        type="button"
                        className="button"
                        disabled={!canAct}
                        onClick={() => replay(l.event_id)}
                        aria-label={`Replay ${l.event_id}`}
                      >
                        Replay
                      </button>
                    ),
                  },
                ]}
              />
            </section>
            <section className="section" aria-labelledby="endpoints-title">
              <h2 id="endpoints-title">Endpoints</h2>
              <Table
                caption="Webhook endpoints"
                testId="webhook-endpoints"
                rows={d.endpoints}
                rowKey={(e) => e.merchant_id}
                empty="No webhook endpoint."
                columns={[
                  { header: "Merchant", cell: (e) => <MerchantLink id={e.merchant_id} /> },
                  {
                    header: "Status",
                    cell: (e) => `${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ""}`,
                  },
                  { header: "Delivered", cell: (e) => e.deliveries.delivered, numeric: true },
                  { header: "Dead", cell: (e) => e.deliveries.dead, numeric: true },
                  { header: "Success", cell: (e) => rate(e.success_rate), numeric: true },
                ]}
              />
              <Pager
                label="Endpoints"
                page={pager.page}
                nextCursor={d.next_cursor}
                onNext={pager.next}
                onPrevious={pager.previous}
              />
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}
