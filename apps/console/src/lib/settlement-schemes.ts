/**
 * How a settlement's money came, as the consoles label it (decision 0093): a splitter payment, or a claim from an
 * x402 batch-settlement channel (one claim pays many requests).
 */
export const SCHEME_LABELS: Readonly<Record<"splitter" | "batch-settlement", string>> = {
  splitter: "Splitter",
  "batch-settlement": "Session (batch)",
};
