/**
 * Every deployment file parses and validates against its published schema, offline: the compose file against the
 * Compose Specification, each Kubernetes object against the Kubernetes schemas; and a broken one does not.
 * docs/decisions/0062-containers-orchestration-and-configuration-reference.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  type KubernetesObject,
  parseKubernetesYaml,
  readCompose,
  readEnvFile,
  readKubernetesFiles,
} from "../src/deploy-files";
import { KUBERNETES_DIR } from "../src/paths";
import { composeProblems, kubernetesProblems } from "../src/validate";

describe("deploy/compose.yaml", () => {
  it("is a valid Compose file, before and after interpolation", () => {
    expect(composeProblems(readCompose())).toEqual([]);
    expect(composeProblems(readCompose(readEnvFile()))).toEqual([]);
  });

  it("a broken one is refused: an unknown service key, a depends_on condition compose does not know", () => {
    const compose = readCompose(readEnvFile());
    const api = compose.services.api;
    expect(api).toBeDefined();
    const typo = { ...compose, services: { ...compose.services, api: { ...api, replica: 2 } } };
    expect(composeProblems(typo).join()).toMatch(/additional properties/);
    const condition = {
      ...compose,
      services: {
        ...compose.services,
        api: { ...api, depends_on: { migrate: { condition: "service_done" } } },
      },
    };
    expect(composeProblems(condition).join()).toMatch(/depends_on/);
  });
});

describe("deploy/kubernetes", () => {
  const files = readKubernetesFiles();

  it.each(readKubernetesFiles({ setup: true }).map((file) => [file.file, file.objects] as const))(
    "%s validates against the Kubernetes schemas",
    (_file, objects) => {
      expect(objects.length).toBeGreaterThan(0);
      expect(objects.flatMap((object) => kubernetesProblems(object))).toEqual([]);
    },
  );

  it("the kustomization names every manifest in the folder, and nothing else", () => {
    const kustomization = parseYaml(readFileSync(join(KUBERNETES_DIR, "kustomization.yaml"), "utf8")) as {
      resources: string[];
      namespace: string;
    };
    expect([...kustomization.resources].sort()).toEqual(files.map((file) => file.file));
    for (const object of files.flatMap((file) => file.objects)) {
      if (object.kind !== "Namespace") expect(object.metadata.namespace).toBe(kustomization.namespace);
    }
  });

  it("a broken manifest is refused: a wrong type, a missing required field, an unknown kind, bad YAML", () => {
    const deployment = files.flatMap((file) => file.objects).find((object) => object.kind === "Deployment");
    if (!deployment) throw new Error("no Deployment in deploy/kubernetes");
    const spec = deployment.spec as Record<string, unknown>;
    const wrongType: KubernetesObject = { ...deployment, spec: { ...spec, replicas: "two" } };
    expect(kubernetesProblems(wrongType).join()).toMatch(/replicas must be integer/);
    const { selector: _selector, ...withoutSelector } = spec;
    expect(kubernetesProblems({ ...deployment, spec: withoutSelector }).join()).toMatch(/selector/);
    expect(kubernetesProblems({ ...deployment, kind: "Deploymnet" }).join()).toMatch(/no schema model/);
    expect(() => parseKubernetesYaml("kind: Service\n  metadata: [", "broken.yaml")).toThrow(/broken.yaml/);
  });
});
