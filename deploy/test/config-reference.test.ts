/**
 * docs/configuration.md is what `pnpm docs:config` writes from the environment schemas today, and the
 * "Production" column it prints (src/production.ts) is what the processes' own parsers enforce.
 * docs/decisions/0062-containers-orchestration-and-configuration-reference.md.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultOf, PROCESS_ENVS, renderConfigurationReference, typeOf } from "../src/config-reference";
import { parserRefusal } from "../src/env-check";
import { CONFIGURATION_DOC } from "../src/paths";
import { PRODUCTION_REQUIREMENTS, type ServerProcess } from "../src/production";
import { SAMPLE_SECRETS } from "./samples";

describe("docs/configuration.md", () => {
  it("is current: run `pnpm docs:config` after changing an environment schema", () => {
    expect(readFileSync(CONFIGURATION_DOC, "utf8")).toBe(renderConfigurationReference());
  });

  it("lists every variable of every process, each with a description", () => {
    const text = renderConfigurationReference();
    for (const env of PROCESS_ENVS) {
      for (const [name, schema] of Object.entries(env.variables)) {
        expect(text).toMatch(new RegExp(`\\| \`${name}\` +\\|`));
        expect(schema.description, `${env.process} ${name} has no .describe()`).toBeTruthy();
      }
      for (const [name, schema] of Object.entries(env.perNetwork)) {
        expect(text).toMatch(new RegExp(`\\| \`${name}_<NETWORK>\` +\\|`));
        expect(schema.description, `${env.process} ${name}_<NETWORK> has no .describe()`).toBeTruthy();
      }
    }
  });

  it("reads types and defaults from the schemas themselves", () => {
    const example = z.object({
      A: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(1).default(5)),
      B: z.enum(["x", "y"]),
    });
    expect(typeOf(example.shape.A)).toBe("integer ≥ 1");
    expect(defaultOf(example.shape.A)).toBe(5);
    expect(typeOf(example.shape.B)).toBe("one of `x`, `y`");
    expect(defaultOf(example.shape.B)).toBeUndefined();
  });
});

describe("production requirements (the reference's Production column)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-config-reference-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  // DATA_DIR: a directory with no manifest and no keys, so nothing but the variables decides.
  const base = { NODE_ENV: "production", DATA_DIR: dataDir };
  const sample = (name: string) => {
    const value = SAMPLE_SECRETS[name];
    if (value === undefined) throw new Error(`no sample value for ${name}`);
    return value;
  };

  it.each(["api", "indexer"] as const)(
    "%s: starts with exactly its unconditional requirements, and refuses without any one",
    (process: ServerProcess) => {
      const required = Object.entries(PRODUCTION_REQUIREMENTS[process]).filter(
        ([, requirement]) => requirement.kind === "refused" && !requirement.when,
      );
      expect(required.length).toBeGreaterThan(0);
      const minimal = Object.fromEntries(required.map(([name]) => [name, sample(name)]));
      // Anything else production refuses without would show here: the list would be incomplete.
      expect(parserRefusal(process, { ...base, ...minimal })).toBeUndefined();
      for (const [name] of required) {
        const { [name]: _dropped, ...without } = minimal;
        expect(parserRefusal(process, { ...base, ...without }), name).toMatch(new RegExp(name));
      }
    },
  );

  it("conditional requirements refuse only when their condition holds", () => {
    for (const [process, requirements] of Object.entries(PRODUCTION_REQUIREMENTS) as [
      ServerProcess,
      (typeof PRODUCTION_REQUIREMENTS)[ServerProcess],
    ][]) {
      const unconditional = Object.fromEntries(
        Object.entries(requirements)
          .filter(([, requirement]) => requirement.kind === "refused" && !requirement.when)
          .map(([name]) => [name, sample(name)]),
      );
      for (const [name, requirement] of Object.entries(requirements)) {
        if (requirement.kind !== "refused" || !requirement.when) continue;
        const condition = { [requirement.when.name]: requirement.when.value };
        expect(parserRefusal(process, { ...base, ...unconditional, ...condition }), name).toMatch(
          new RegExp(name),
        );
        expect(
          parserRefusal(process, { ...base, ...unconditional, ...condition, [name]: sample(name) }),
        ).toBeUndefined();
      }
    }
  });
});
