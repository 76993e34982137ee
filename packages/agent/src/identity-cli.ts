/**
 * `tollgate-agent identity fetch <url> --solana-key-file <file> [--prefix tollgate] [--json]` (SPEC §5): answers
 * the identity gate's 402 by signing its nonce with a Solana keypair file and retries. Exit 0 on a 2xx, 1 otherwise,
 * 2 on usage errors.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { identityFetch, identityFromKeypairJson } from "./identity";

export interface IdentityCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const IDENTITY_USAGE = `Usage: tollgate-agent identity fetch <url> --solana-key-file <file> [--prefix tollgate] [--json]
       tollgate-agent identity pubkey --solana-key-file <file>
`;

export async function runIdentityCli(argv: string[], io: IdentityCliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${IDENTITY_USAGE}`);
    return 2;
  }
  const { command, url, keyFile, prefix, json } = parsed;
  let identity: ReturnType<typeof identityFromKeypairJson>;
  try {
    identity = identityFromKeypairJson(readFileSync(keyFile, "utf8"));
  } catch (error) {
    io.stderr(`error: ${keyFile}: ${(error as Error).message}\n`);
    return 2;
  }
  if (command === "pubkey") {
    io.stdout(`${identity.pubkey}\n`);
    return 0;
  }
  try {
    const { response, challenge } = await identityFetch(url ?? "", identity, prefix ? { prefix } : {});
    const text = await response.text();
    if (json) {
      io.stdout(
        `${JSON.stringify({ ok: response.ok, status: response.status, pubkey: identity.pubkey, answered_challenge: Boolean(challenge), body: safeJson(text) })}\n`,
      );
    } else {
      if (challenge)
        io.stdout(`402 answered: signed nonce ${String(challenge["x-nonce"])} as ${identity.pubkey}\n`);
      io.stdout(`HTTP ${response.status}\n${text}\n`);
    }
    return response.ok ? 0 : 1;
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return 1;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "solana-key-file": { type: "string" },
      prefix: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const [command, url, ...rest] = positionals;
  if (command !== "fetch" && command !== "pubkey")
    throw new Error("expected: identity fetch <url> | identity pubkey");
  if (command === "fetch" && (!url || !/^https?:\/\//.test(url))) throw new Error("expected an http(s) URL");
  if (rest.length > 0 || (command === "pubkey" && url)) throw new Error("too many arguments");
  const keyFile = values["solana-key-file"];
  if (!keyFile) throw new Error("--solana-key-file is required");
  return { command, url, keyFile, prefix: values.prefix, json: values.json };
}
