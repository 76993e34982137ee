/**
 * Test support (clean shutdown frees every port): which TCP ports a process group listens on, read from Linux /proc —
 * every port `pnpm start` opens, printed or not (the demo upstream's is ephemeral). Undefined without /proc.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Pids whose process group is `pgid`. */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses, so split after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match?.[1]) inodes.add(match[1]);
      } catch {
        // fd closed meanwhile
      }
    }
  } catch {
    // process gone
  }
  return inodes;
}

/** TCP ports in LISTEN state: all of them, or only those whose socket one of `pids` holds. */
export function listeningPorts(pids?: readonly number[]): Set<number> | undefined {
  if (!existsSync("/proc/net/tcp")) return undefined;
  const inodes = pids ? new Set(pids.flatMap((pid) => [...socketInodes(pid)])) : undefined;
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is "HEXIP:HEXPORT"; st 0A is LISTEN; inode is column 10.
      if (cols.length < 10 || cols[3] !== "0A") continue;
      if (inodes && !inodes.has(cols[9] ?? "")) continue;
      ports.add(Number.parseInt(cols[1]?.split(":")[1] ?? "", 16));
    }
  }
  return ports;
}
