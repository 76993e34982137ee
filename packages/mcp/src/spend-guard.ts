/**
 * Spend limits enforced by the server, never left to the model (docs/mcp.md). Three layers, all
 * checked before anything is signed:
 * - per payment and per rolling period (24 h by default): the agent client's own limits, kept in its store;
 * - per tool call: one `pay_and_fetch` may buy more than once; their sum is capped (a `max_usd` argument may
 *   lower the cap, never raise it);
 * - per session: a stdio process, or one Streamable HTTP session.
 * The call and session checks run on each rail's requirement step (AIFP-1 `quote`, x402 `x402_requirement`, legacy
 * `pay_matic_requirement`; decision 0081), which comes before the quote checks, the durable commit and any
 * signature; a throwing step stops the purchase there (packages/agent options.ts `onStep`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AgentStep } from "@tollgate/agent";
import { formatUsd, parseUsd } from "@tollgate/shared";

/** The steps every rail reports before it commits and signs a payment (each carries its USD `amount`). */
const REQUIREMENT_STEPS = new Set(["quote", "x402_requirement", "pay_matic_requirement"]);
/** The steps after which money may have moved: a failed call keeps its reservation. */
const SENT_STEPS = new Set(["approval_sent", "settlement_sent", "x402_payment_sent", "pay_matic_sent"]);

type RequirementStep = Extract<AgentStep, { type: "quote" | "x402_requirement" | "pay_matic_requirement" }>;
function isRequirement(step: AgentStep): step is RequirementStep {
  return REQUIREMENT_STEPS.has(step.type);
}

/** A call or session limit would be exceeded; nothing was signed. */
export class McpSpendLimitError extends Error {
  override name = "McpSpendLimitError";
  readonly code = "spend_limit_exceeded";
  constructor(
    readonly limit: "per_call" | "per_session",
    readonly amountUsd: string,
    readonly allowedUsd: string,
  ) {
    super(
      `a payment of ${amountUsd} USD exceeds the ${limit.replace("_", " ")} limit (${allowedUsd} USD left)`,
    );
  }
}

/** What one MCP session may still spend (micro-USD). */
export class SessionBudget {
  private spent = 0n;
  constructor(readonly budget: bigint) {}
  get spentMicro(): bigint {
    return this.spent;
  }
  get leftMicro(): bigint {
    return this.budget > this.spent ? this.budget - this.spent : 0n;
  }
  reserve(amount: bigint): void {
    this.spent += amount;
  }
  release(amount: bigint): void {
    this.spent -= amount;
  }
}

/** One tool call that may pay: its cap, what it reserved, and the steps the agent reported. */
export class CallSpend {
  reserved = 0n;
  /** Set once a transaction was broadcast: from then on the reservation stays even if the call fails. */
  sent = false;
  readonly steps: AgentStep[] = [];
  constructor(
    readonly session: SessionBudget,
    readonly cap: bigint,
  ) {}

  /** Called for every agent step of this call; throws to refuse a quote before it is signed. */
  onStep(step: AgentStep): void {
    this.steps.push(step);
    if (SENT_STEPS.has(step.type)) this.sent = true;
    if (!isRequirement(step)) return;
    const amount = parseUsd(step.amount);
    if (this.reserved + amount > this.cap)
      throw new McpSpendLimitError("per_call", step.amount, formatUsd(this.cap - this.reserved));
    if (amount > this.session.leftMicro)
      throw new McpSpendLimitError("per_session", step.amount, formatUsd(this.session.leftMicro));
    this.reserved += amount;
    this.session.reserve(amount);
  }

  /** A call that failed before any transaction was broadcast gives its reservation back. */
  settle(failed: boolean): void {
    if (failed && !this.sent) {
      this.session.release(this.reserved);
      this.reserved = 0n;
    }
  }
}

/** Routes the one agent's steps to the tool call that caused them. */
export const currentCall = new AsyncLocalStorage<CallSpend>();

/** The agent's `onStep`: a step outside any tool call is refused (no payment without a budget). */
export function routeStep(step: AgentStep): void {
  const call = currentCall.getStore();
  if (!call) {
    if (isRequirement(step)) throw new McpSpendLimitError("per_call", step.amount, "0");
    return;
  }
  call.onStep(step);
}
