import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { DEMO_AGENT_KEY, gateSample, testPaidCallCommands } from "./samples";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "..");
/** The samples are compiled as files of apps/api, which depends on `@tollgate/gate` and `express`. */
const API_SRC = join(REPO, "apps", "api", "src");

/** Type-checks each source (one program) under apps/api's compiler options; the diagnostics' texts per source. */
function typeCheck(sources: Record<string, string>): Record<string, string[]> {
  const config = ts.readConfigFile(join(REPO, "apps", "api", "tsconfig.json"), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, join(REPO, "apps", "api")).options;
  const files = new Map(Object.entries(sources).map(([name, text]) => [join(API_SRC, `${name}.ts`), text]));
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files.get(resolve(name)) ?? readFile(name);
  host.fileExists = (name) => files.has(resolve(name)) || fileExists(name);
  const program = ts.createProgram([...files.keys()], { ...options, noEmit: true }, host);
  const found: Record<string, string[]> = Object.fromEntries(Object.keys(sources).map((name) => [name, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const name = diagnostic.file ? relative(API_SRC, diagnostic.file.fileName).replace(/\.ts$/, "") : "";
    found[name] = [...(found[name] ?? []), ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")];
  }
  return found;
}

describe("Get started samples", () => {
  it("the gate sample with the merchant's values type-checks against the current @tollgate/gate", () => {
    const source = gateSample({ merchantId: "mrch_TestMerchant1234", apiBaseUrl: "http://127.0.0.1:3000" });
    expect(source).toContain('merchantId: "mrch_TestMerchant1234"');
    expect(source).toContain('apiBaseUrl: "http://127.0.0.1:3000"');
    // The check can fail: the same sample with an option the gate does not take is a type error.
    const broken = source.replace("tier:", "tierName:");
    const found = typeCheck({ "gate-sample-onboarding": source, "gate-sample-broken": broken });
    expect(found).toEqual({
      "gate-sample-onboarding": [],
      "gate-sample-broken": [expect.stringMatching(/tierName/)],
    });
  }, 90_000);

  it("merchant values are string literals and shell-quoted, never code", () => {
    const hostile = 'mrch_x", apiBaseUrl: process.env.X, y: "';
    expect(gateSample({ merchantId: hostile, apiBaseUrl: "http://x" })).toContain(JSON.stringify(hostile));
    const commands = testPaidCallCommands({
      merchantId: "mrch_Ab'c",
      apiBaseUrl: "http://127.0.0.1:3000",
      network: "amoy",
      chainId: 80002,
    });
    expect(commands).toContain(`TOLLGATE_MERCHANT_ID='mrch_Ab'\\''c'`);
    expect(commands).toContain(`TOLLGATE_AGENT_PRIVATE_KEY=${DEMO_AGENT_KEY}`);
    expect(commands).toContain("--network 'amoy'");
    expect(commands).toContain(
      `"80002=$(node -p 'require('\\''./.tollgate/deployments.json'\\'').chains["amoy"].rpcUrl')"`,
    );
  });
});
