/**
 * `pnpm keys:quote-signer <grant|revoke|status>` (docs/keys.md "Quote signers"): SIGNER_ROLE on splitter v1.4.
 *   --network <n>          polygon, base or amoy (the manifest's chain)
 *   --rpc <url>            the chain's RPC; must serve the manifest's chain id
 *   --manifest <file>      deployment manifest; its v1.4 `signers` list is updated on grant and revoke
 *   --admin-key-file <f>   grant/revoke: the splitter admin's private key (hex), mode 0600; never an argument
 *   --address <a>          grant/revoke: the signer; status: an extra address to check
 * Relative paths are taken from the directory the command was started in.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type EvmNetworkName, NETWORK_NAME_PATTERN } from "@tollgate/shared/networks";
import { type Address, isAddress } from "viem";
import {
  grantQuoteSigner,
  QuoteSignerError,
  quoteSignerStatus,
  readAdminKeyFile,
  revokeQuoteSigner,
} from "../src/quote-signer";

const USAGE =
  "usage: pnpm keys:quote-signer <grant|revoke|status> --network <n> --rpc <url> --manifest <file> [--admin-key-file <f>] [--address <0x...>]";

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    network: { type: "string" },
    rpc: { type: "string" },
    manifest: { type: "string" },
    "admin-key-file": { type: "string" },
    address: { type: "string" },
  },
});
// pnpm runs package scripts in the package directory; INIT_CWD is where the operator typed the command.
const fromCaller = (file: string) => resolve(process.env.INIT_CWD ?? process.cwd(), file);
const [command] = positionals;
if (!command || !["grant", "revoke", "status"].includes(command)) fail(USAGE);
const network = values.network as EvmNetworkName | undefined;
// Any network the manifest holds (decision 0057); the manifest entry itself is checked when it is read.
if (!network || !NETWORK_NAME_PATTERN.test(network)) fail("--network: a network name of the manifest");
if (!values.rpc || !values.manifest) fail(USAGE);
if (values.address !== undefined && !isAddress(values.address))
  fail(`--address: not an address: ${values.address}`);
const target = { network, rpcUrl: values.rpc, manifestPath: fromCaller(values.manifest) };

try {
  if (command === "status") {
    const extra = values.address ? [values.address as Address] : [];
    for (const signer of await quoteSignerStatus(target, extra)) {
      console.log(
        `${signer.address}  role on chain: ${signer.onChain ? "yes" : "no"}  in manifest: ${signer.inManifest ? "yes" : "no"}`,
      );
    }
  } else {
    if (!values["admin-key-file"] || !values.address) fail(`${command} needs --admin-key-file and --address`);
    const adminKey = readAdminKeyFile(fromCaller(values["admin-key-file"]));
    const change = command === "grant" ? grantQuoteSigner : revokeQuoteSigner;
    const { txHash, signers } = await change(target, adminKey, values.address as Address);
    console.log(
      `${command === "grant" ? "granted" : "revoked"} SIGNER_ROLE ${command === "grant" ? "to" : "from"} ${values.address} on ${network}${txHash ? ` (${txHash})` : " (already so; no transaction)"}`,
    );
    console.log(`manifest signers: ${signers.join(", ") || "none"}`);
  }
} catch (error) {
  if (error instanceof QuoteSignerError) fail(error.message);
  throw error;
}
