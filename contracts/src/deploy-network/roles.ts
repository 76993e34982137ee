/**
 * Configures the deployed splitters, each step checked against chain state first so a rerun sends nothing twice
 * (docs/deploy.md): allow-list the tokens, enable aifp2 where SPEC §2.10 says so, then hand administration to the
 * admin. Decision 0054: the deployer keeps nothing once the admin holds the admin role. On v1.4 it grants the admin
 * DEFAULT_ADMIN_ROLE and renounces its own; on v1.2 (Ownable2Step) it proposes the admin as owner and stays owner only
 * until the admin calls acceptOwnership().
 */
import { splitterV12Abi, splitterV14Abi } from "@tollgate/shared/abi/index";
import { SPLITTER_V14_ROUTES } from "@tollgate/shared/contracts";
import { type Address, encodeFunctionData, isAddressEqual, zeroHash } from "viem";
import { DeployError } from "./cli-args";
import { type MinedStep, type Net, resumeStep, sendStep } from "./journal";
import type { DeployPlan } from "./plan";

export interface Splitters {
  v12: Address;
  v14: Address;
}

/** Finishes a journaled step left unmined, then sends the call unless `done()` already holds on chain. */
async function ensure(
  net: Net,
  key: string,
  what: string,
  done: () => Promise<boolean>,
  call: { to: Address; data: `0x${string}` },
): Promise<void> {
  const pending = net.journal.data.steps[key];
  if (pending && !pending.mined) await resumeStep(net, key);
  if (await done()) {
    net.log(`= ${what}: already in place`);
    return;
  }
  const mined: MinedStep = await sendStep(net, key, call);
  net.log(`✓ ${what}  tx ${mined.hash}  block ${mined.block}  gas ${mined.gasUsed}`);
}

async function v12Owner(net: Net, v12: Address): Promise<Address> {
  return net.publicClient.readContract({ address: v12, abi: splitterV12Abi, functionName: "owner" });
}

async function v14IsAdmin(net: Net, v14: Address, account: Address): Promise<boolean> {
  return net.publicClient.readContract({
    address: v14,
    abi: splitterV14Abi,
    functionName: "hasRole",
    args: [zeroHash, account],
  });
}

/** Throws when a change is still needed but the deployer no longer administers the splitter. */
async function requireDeployerAdmin(
  net: Net,
  s: Splitters,
  version: "v1.2" | "v1.4",
  what: string,
): Promise<void> {
  const me = net.account.address;
  const admin =
    version === "v1.2" ? isAddressEqual(await v12Owner(net, s.v12), me) : await v14IsAdmin(net, s.v14, me);
  if (!admin) {
    throw new DeployError(
      `${what} is needed, but the deployer no longer administers splitter ${version}: the admin must do it`,
    );
  }
}

/** Allow-lists every token on both splitters (v1.2 then v1.4, token by token). */
export async function allowTokens(net: Net, s: Splitters, tokens: Record<string, Address>): Promise<void> {
  for (const [symbol, token] of Object.entries(tokens)) {
    for (const [version, address, abi] of [
      ["v1.2", s.v12, splitterV12Abi],
      ["v1.4", s.v14, splitterV14Abi],
    ] as const) {
      const what = `allow ${symbol} on splitter ${version}`;
      const allowed = () =>
        net.publicClient.readContract({ address, abi, functionName: "isTokenAllowed", args: [token] });
      if (!(await allowed())) await requireDeployerAdmin(net, s, version, what);
      await ensure(net, `allow:${version}:${symbol}:${token}`, what, allowed, {
        to: address,
        data: encodeFunctionData({
          abi: splitterV12Abi,
          functionName: "setTokenAllowed",
          args: [token, true],
        }),
      });
    }
  }
}

/** Enables the aifp2 route on v1.4 (amoy only: SPEC §2.10). */
export async function enableAifp2(net: Net, s: Splitters): Promise<void> {
  const what = "enable route aifp2 on splitter v1.4";
  const enabled = async () => {
    const route = await net.publicClient.readContract({
      address: s.v14,
      abi: splitterV14Abi,
      functionName: "getRoute",
      args: [SPLITTER_V14_ROUTES.aifp2],
    });
    return route.enabled;
  };
  if (!(await enabled())) await requireDeployerAdmin(net, s, "v1.4", what);
  await ensure(net, "route:v1.4:aifp2", what, enabled, {
    to: s.v14,
    data: encodeFunctionData({
      abi: splitterV14Abi,
      functionName: "setRouteEnabled",
      args: [SPLITTER_V14_ROUTES.aifp2, true],
    }),
  });
}

/** Hands both splitters to the admin (a no-op when the deployer is the admin). */
export async function handOver(net: Net, s: Splitters, plan: DeployPlan): Promise<void> {
  const me = net.account.address;
  const { admin } = plan.roles;
  if (isAddressEqual(me, admin)) {
    net.log("= the deployer is the admin: it keeps the admin role on both splitters");
    return;
  }
  // Grant before renouncing: the splitter is never without an admin.
  await ensure(
    net,
    "v1.4:grant-admin",
    `grant DEFAULT_ADMIN_ROLE on splitter v1.4 to ${admin}`,
    () => v14IsAdmin(net, s.v14, admin),
    {
      to: s.v14,
      data: encodeFunctionData({ abi: splitterV14Abi, functionName: "grantRole", args: [zeroHash, admin] }),
    },
  );
  await ensure(
    net,
    "v1.4:renounce-admin",
    `renounce the deployer's DEFAULT_ADMIN_ROLE on splitter v1.4`,
    async () => !(await v14IsAdmin(net, s.v14, me)),
    {
      to: s.v14,
      data: encodeFunctionData({ abi: splitterV14Abi, functionName: "renounceRole", args: [zeroHash, me] }),
    },
  );
  const proposed = async () => {
    const [owner, pending] = await Promise.all([
      v12Owner(net, s.v12),
      net.publicClient.readContract({ address: s.v12, abi: splitterV12Abi, functionName: "pendingOwner" }),
    ]);
    return isAddressEqual(owner, admin) || isAddressEqual(pending, admin);
  };
  await ensure(net, "v1.2:transfer-ownership", `propose ${admin} as owner of splitter v1.2`, proposed, {
    to: s.v12,
    data: encodeFunctionData({ abi: splitterV12Abi, functionName: "transferOwnership", args: [admin] }),
  });
}

/** Who administers what now, for the summary and the manifest. */
export async function readAdministration(
  net: Net,
  s: Splitters,
): Promise<{ v12Owner: Address; v12PendingOwner: Address; deployerIsV14Admin: boolean }> {
  const [owner, pending, deployerIsV14Admin] = await Promise.all([
    v12Owner(net, s.v12),
    net.publicClient.readContract({ address: s.v12, abi: splitterV12Abi, functionName: "pendingOwner" }),
    v14IsAdmin(net, s.v14, net.account.address),
  ]);
  return { v12Owner: owner, v12PendingOwner: pending, deployerIsV14Admin };
}
