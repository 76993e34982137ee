/** The failed-payments page as CSV (decision 0077): the same rows and order as the JSON page, one line each. */
import { type CsvColumn, csvOf } from "../../http/csv-export";
import { SETTLEMENT_LOCATION_CSV, SETTLEMENT_MONEY_CSV } from "../chains";
import type { listFailedPayments } from "./failed-payments-service";

type FailedPaymentsPage = Awaited<ReturnType<typeof listFailedPayments>>;

const COLUMNS: readonly CsvColumn<FailedPaymentsPage["failed"][number]>[] = [
  ["id", (f) => f.id],
  ["kind", (f) => f.kind],
  ["reason", (f) => f.reason],
  ["status", (f) => f.status],
  ...SETTLEMENT_LOCATION_CSV,
  ["payer", (f) => f.payer],
  ["merchant_id", (f) => f.merchant_id],
  ["merchant_address", (f) => f.merchant_address],
  ...SETTLEMENT_MONEY_CSV,
  ["receipt_id", (f) => f.receipt_id],
  ["settlement_state", (f) => f.settlement_state],
  ["seen_at", (f) => f.seen_at],
  ["bridge_provider", (f) => f.bridge?.provider],
  ["resolution", (f) => f.resolution?.resolution],
  ["resolution_note", (f) => f.resolution?.note],
  ["refund_tx_hash", (f) => f.resolution?.refund_tx_hash],
  ["resolved_by", (f) => f.resolution?.resolved_by],
  ["resolved_at", (f) => f.resolution?.resolved_at],
];

export function failedPaymentsCsv(page: FailedPaymentsPage): string {
  return csvOf(COLUMNS, page.failed);
}
