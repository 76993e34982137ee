/**
 * `tollgate-agent channels list|close` (docs/decisions/0087): the agent's x402 batch-settlement channels as a
 * readable table (or one JSON object with `--json`), and closing one (cooperative refund through its server, else
 * the escrow's timed withdrawal; `--finalize` once the delay has passed).
 *
 * Exit codes as for `pay`: 0 done; 1 refused or failed; 2 usage error (cli.ts).
 */
import { formatUnits } from "viem";
import type { CliIo } from "./cli-options";
import type { Agent } from "./options";
import type { ChannelView } from "./x402-channels";

export type ChannelCommand = { action: "list" } | { action: "close"; channelId: string; finalize: boolean };

function amount(view: ChannelView, atomic: string): string {
  return `${formatUnits(BigInt(atomic), view.decimals)} ${view.symbol}`;
}

/** One line per channel, aligned columns. */
export function channelTable(views: readonly ChannelView[]): string {
  if (views.length === 0) return "no channels\n";
  const header = [
    "CHANNEL",
    "CHAIN",
    "STATE",
    "DEPOSITED",
    "BALANCE",
    "CLAIMED",
    "CHARGED",
    "WITHDRAWAL",
    "URL",
  ];
  const rows = views.map((v) => [
    v.channelId,
    String(v.chainId),
    v.state,
    amount(v, v.deposited),
    amount(v, v.balance),
    amount(v, v.totalClaimed),
    amount(v, v.charged),
    v.withdrawal ? `${amount(v, v.withdrawal.amount)} from ${v.withdrawal.readyAt}` : "-",
    v.url,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}

/** Runs `channels list|close`; resolves with the exit code. Errors are left to the caller (cli.ts). */
export async function runChannels(
  agent: Agent,
  command: ChannelCommand,
  json: boolean,
  io: CliIo,
): Promise<number> {
  if (command.action === "list") {
    const channels = await agent.channels();
    io.stdout(
      json ? `${JSON.stringify({ ok: true, payer: agent.address, channels })}\n` : channelTable(channels),
    );
    return 0;
  }
  const result = await agent.closeChannel(command.channelId, { finalize: command.finalize });
  if (json) {
    io.stdout(`${JSON.stringify({ ok: true, payer: agent.address, result })}\n`);
  } else if (result.action === "refunded") {
    io.stdout(`channel ${result.channelId}: ${result.amount} atomic refunded (tx ${result.transaction})\n`);
  } else if (result.action === "withdrawal_initiated") {
    io.stdout(
      `channel ${result.channelId}: the server did not refund; withdrawal of ${result.amount} atomic started ` +
        `(tx ${result.transaction}), finalize with --finalize after ${result.readyAt}\n`,
    );
  } else {
    io.stdout(`channel ${result.channelId}: ${result.amount} atomic withdrawn (tx ${result.transaction})\n`);
  }
  return 0;
}
