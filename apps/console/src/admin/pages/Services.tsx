/** Process dashboards: telemetry (latency percentiles), the x402 facilitator (relayer balances), Solana/identity gate. */
import { useState } from "react";
import { useLoad } from "../../hooks/useLoad";
import { SelectFilter } from "../../ui/Filters";
import { type Column, Table } from "../../ui/Table";
import type { Telemetry } from "../api";
import { useAdmin } from "../context";
import { LatencyChart } from "../LatencyChart";
import { MerchantLink } from "../links";
import { Amount, Loaded, Mono, Stat, Time } from "../ui";

/** The figures every telemetry series has (apps/api SeriesSummary), as the API sends them. */
type Summary = Pick<
  Telemetry["routes"][number],
  "requests" | "error_rate" | "client_error_rate" | "latency_ms"
>;
const ms = (value: number | null) => (value === null ? "—" : `${value} ms`);
const pct = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(1)} %`);
const summaryColumns = <Row extends Summary>(): Column<Row>[] => [
  { header: "Requests", cell: (r) => r.requests, numeric: true },
  { header: "5xx", cell: (r) => pct(r.error_rate), numeric: true },
  { header: "4xx", cell: (r) => pct(r.client_error_rate), numeric: true },
  { header: "p50", cell: (r) => ms(r.latency_ms.p50), numeric: true },
  { header: "p90", cell: (r) => ms(r.latency_ms.p90), numeric: true },
  { header: "p95", cell: (r) => ms(r.latency_ms.p95), numeric: true },
  { header: "p99", cell: (r) => ms(r.latency_ms.p99), numeric: true },
  { header: "max", cell: (r) => ms(r.latency_ms.max), numeric: true },
];

export function TelemetryPage() {
  const { client } = useAdmin();
  const [windowMinutes, setWindowMinutes] = useState(15);
  const data = useLoad(
    () => client.dashboard.telemetry.query({ window_minutes: windowMinutes }),
    String(windowMinutes),
  );
  return (
    <>
      <h1>Telemetry</h1>
      <SelectFilter
        labelClassName="filters"
        label="Window"
        value={windowMinutes}
        options={[5, 15, 30, 60]}
        optionLabel={(m) => `${m} minutes`}
        onChange={(event) => setWindowMinutes(Number(event.target.value))}
        testId="telemetry-window"
      />
      <Loaded load={data} what="telemetry">
        {(d) => (
          <>
            <p className="muted">
              Figures of API process <code>{d.process_id}</code> only (since <Time at={d.counted_since} />
              ).
            </p>
            <LatencyChart routes={d.routes} />
            <Table
              caption="Per route"
              testId="telemetry-routes"
              rows={d.routes}
              rowKey={(r) => `${r.method} ${r.route}`}
              empty="No requests in the window."
              columns={[
                { header: "Route", cell: (r) => <code>{`${r.method} ${r.route}`}</code> },
                ...summaryColumns<(typeof d.routes)[number]>(),
              ]}
            />
            <Table
              caption="Per merchant"
              testId="telemetry-merchants"
              rows={d.merchants}
              rowKey={(r) => r.merchant_id}
              empty="No merchant requests in the window."
              columns={[
                {
                  header: "Merchant",
                  cell: (r) => (r.merchant_id === "other" ? "other" : <MerchantLink id={r.merchant_id} />),
                },
                ...summaryColumns<(typeof d.merchants)[number]>(),
              ]}
            />
            <Table
              caption="Settlement latency (first seen to confirmed)"
              testId="telemetry-settlement"
              rows={d.settlement_latency}
              rowKey={(r) => r.network}
              empty="No settlement confirmed in the window."
              columns={[
                { header: "Network", cell: (r) => r.network },
                { header: "Settlements", cell: (r) => r.settlements, numeric: true },
                {
                  header: "p50",
                  cell: (r) => (r.seconds.p50 === null ? "—" : `${r.seconds.p50} s`),
                  numeric: true,
                },
                {
                  header: "p90",
                  cell: (r) => (r.seconds.p90 === null ? "—" : `${r.seconds.p90} s`),
                  numeric: true,
                },
                {
                  header: "p99",
                  cell: (r) => (r.seconds.p99 === null ? "—" : `${r.seconds.p99} s`),
                  numeric: true,
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </>
  );
}

export function X402Page() {
  const { client } = useAdmin();
  const data = useLoad(() => client.dashboard.x402.query(), "x402");
  return (
    <>
      <h1>x402 facilitator</h1>
      <Loaded load={data} what="the facilitator">
        {(d) => (
          <>
            {d.warnings.map((warning) => (
              <p key={warning} className="banner banner--warning" role="alert" data-testid="x402-warning">
                {warning}
              </p>
            ))}
            {!d.bridge_mounted ? (
              <p className="muted">The bridge runs as its own process: its counts are not visible here.</p>
            ) : null}
            <Table
              caption="Bridges in this API process"
              testId="x402-bridges"
              rows={d.bridges}
              rowKey={(b) => b.network}
              empty="No bridge mounted."
              columns={[
                { header: "Network", cell: (b) => b.network },
                {
                  header: "Relayer",
                  cell: (b) => (b.relayer ? <Mono value={b.relayer.address} /> : "none (x402 not offered)"),
                },
                {
                  header: "Balance",
                  cell: (b) =>
                    b.relayer?.balance_wei ? (
                      <span className={b.relayer.low_balance ? "pill pill--bad" : "pill pill--good"}>
                        <Amount base={b.relayer.balance_wei} asset={null} />{" "}
                        {b.relayer.low_balance ? "(low)" : ""}
                      </span>
                    ) : (
                      (b.relayer?.error ?? "—")
                    ),
                },
                {
                  header: "exact verifies ok/bad/err",
                  cell: (b) => `${b.verifies.valid}/${b.verifies.invalid}/${b.verifies.errors}`,
                },
                {
                  header: "exact settles ok/failed/err",
                  cell: (b) => `${b.settles.succeeded}/${b.settles.failed}/${b.settles.errors}`,
                },
                {
                  header: "upto verifies ok/bad/err",
                  cell: (b) =>
                    `${b.upto.verifies.valid}/${b.upto.verifies.invalid}/${b.upto.verifies.errors}`,
                },
                {
                  header: "upto settles ok/failed/err",
                  cell: (b) =>
                    `${b.upto.settles.succeeded}/${b.upto.settles.failed}/${b.upto.settles.errors}`,
                },
                {
                  header: "Session calls ok/refused/failed",
                  cell: (b) => {
                    const v = b.batch_settlement.vouchers;
                    return `${v.accepted}/${v.refused}/${v.failed}`;
                  },
                },
                {
                  header: "Session claims ok/failed",
                  cell: (b) => `${b.batch_settlement.claims.confirmed}/${b.batch_settlement.claims.failed}`,
                },
                { header: "In flight", cell: (b) => b.settles_in_flight, numeric: true },
                {
                  header: "Gas spent",
                  cell: (b) => <Amount base={b.gas_spent_wei} asset={null} />,
                  numeric: true,
                },
              ]}
            />
            <p className="muted">
              Low-balance threshold: <Amount base={d.low_balance_threshold_wei} asset={null} /> (native coin).
            </p>
          </>
        )}
      </Loaded>
    </>
  );
}

export function SolanaPage() {
  const { client } = useAdmin();
  const data = useLoad(() => client.dashboard.solana.query(), "solana");
  return (
    <>
      <h1>Solana and identity gate</h1>
      <Loaded load={data} what="the identity gate">
        {(d) => (
          <>
            <p data-testid="solana-rpc">
              RPC:{" "}
              {d.rpc.configured
                ? `${d.rpc.origin ?? "configured"}, ${d.rpc.healthy ? "healthy" : `unhealthy (${d.rpc.error ?? "no answer"})`}`
                : "not configured"}
              {d.rpc.slot !== null ? `, slot ${d.rpc.slot}` : ""}
            </p>
            <div className="stats">
              <Stat label="Nonces issued" value={d.gate.nonces_issued} />
              <Stat label="Verified" value={d.gate.verified} />
              <Stat label="Refused: malformed" value={d.gate.refused_malformed} />
              <Stat label="Refused: signature" value={d.gate.refused_signature} />
              <Stat label="Refused: nonce" value={d.gate.refused_nonce} />
              <Stat label="Refused: seat" value={d.gate.refused_seat} />
              <Stat
                label="Seat RPC calls"
                value={`${d.seat_checks.rpc_calls} (${d.seat_checks.rpc_failures} failed)`}
              />
              <Stat label="Seat cache hits" value={d.seat_checks.cache_hits} />
            </div>
            <p className="muted">
              Nonce store: {d.gate.nonce_store}. Counts since <Time at={d.counted_since} /> (this process).
            </p>
          </>
        )}
      </Loaded>
    </>
  );
}
