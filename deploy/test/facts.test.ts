/**
 * Facts across the deployment files (docs/decisions/0062-containers-orchestration-and-configuration-reference.md):
 * the Dockerfile, compose and Kubernetes run the entries of deploy/entries.json (the release layout, decision 0060);
 * every variable they set is one the process's zod schema knows; the process's own parser accepts each
 * environment as production; and what replicas must share is set, to one value.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ComposeService,
  composeProcessEnv,
  execForm,
  instructionTexts,
  type KubernetesObject,
  kubernetesProcessEnv,
  podSpecOf,
  readCompose,
  readDockerfile,
  readEntries,
  readEnvFile,
  readKubernetesFiles,
  stageEnv,
  tollgateServices,
} from "../src/deploy-files";
import { processEnvProblems } from "../src/env-check";
import { COMPOSE_FILE, DEPLOY_DIR } from "../src/paths";
import type { ServerProcess } from "../src/production";
import { SAMPLE_SECRETS } from "./samples";

const entries = readEntries();
const dockerfile = readDockerfile();
const runtime = dockerfile.stages.at(-1);
if (!runtime) throw new Error("the Dockerfile has no stage");
const imageEnv = stageEnv(runtime);

/** Variables every replica must see with one value (docs/operations.md "Running several replicas"). */
function differingShared(envs: readonly { process: ServerProcess; env: Record<string, string> }[]): string[] {
  const everywhere = ["DATABASE_URL", "WEBHOOK_SECRET_KEY", "DEPLOYMENT_MANIFEST", "NODE_ENV"];
  const api = ["BASE_URL", "RECEIPT_KEYS_STORE", "RECEIPT_KEYS_KEK", "QUOTE_SIGNER_PRIVATE_KEY", "REDIS_URL"];
  const differing = (names: string[], group: typeof envs) =>
    names.filter((name) => new Set(group.map(({ env }) => env[name])).size !== 1);
  return [
    ...differing(everywhere, envs),
    ...differing(
      api,
      envs.filter(({ process }) => process === "api"),
    ),
  ];
}

/** The API listens on every interface in a container (its default, 127.0.0.1, is unreachable from the proxy). */
function listensOutside(env: Record<string, string>): boolean {
  return env.HOST === "0.0.0.0" || env.HOST === "::";
}

/** Which parser reads a process's environment: the migration and the CLIs read the API's (decision 0060). */
function processOf(command: readonly string[] | undefined): ServerProcess {
  return command?.[0] === entries.entries.indexer ? "indexer" : "api";
}

describe("Dockerfile", () => {
  it("builds on Node 20 slim (bookworm) in two stages and ships only the release folder", () => {
    expect(dockerfile.args.NODE_IMAGE).toMatch(/^node:20(\.\d+)*-bookworm-slim$/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the FROM lines name the ARG, as written
    const fromArg = "${NODE_IMAGE}";
    expect(dockerfile.stages.map((stage) => [stage.image, stage.name])).toEqual([
      [fromArg, "build"],
      [fromArg, "runtime"],
    ]);
    const build = dockerfile.stages[0];
    if (!build) throw new Error("no build stage");
    const buildRuns = instructionTexts(build, "RUN").join("\n");
    expect(buildRuns).toMatch(/pnpm@10\.34\.9/);
    expect(buildRuns).toMatch(/pnpm install --offline --frozen-lockfile/);
    expect(buildRuns).toMatch(/pnpm build && pnpm release \/release/);
    expect(instructionTexts(runtime, "COPY")).toEqual(["--from=build --chown=root:root /release/ /app/"]);
    expect(instructionTexts(runtime, "WORKDIR")).toEqual([entries.workdir]);
  });

  it("runs as a non-root user under tini, the API by default, any entry by command", () => {
    const users = instructionTexts(runtime, "USER");
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(instructionTexts(runtime, "RUN").join("\n")).toMatch(/apt-get install .*\btini\b/);
    const [entrypoint] = instructionTexts(runtime, "ENTRYPOINT");
    expect(execForm(entrypoint ?? "")).toEqual(["/usr/bin/tini", "--", ...entries.node]);
    const [cmd] = instructionTexts(runtime, "CMD");
    expect(execForm(cmd ?? "")).toEqual([entries.entries.api]);
  });

  it("refuses to build when the release lacks an entry, and checks /healthz with node (no curl)", () => {
    const runs = instructionTexts(runtime, "RUN").join("\n");
    for (const entry of Object.values(entries.entries)) expect(runs).toContain(`test -f ${entry}`);
    const [healthcheck] = instructionTexts(runtime, "HEALTHCHECK");
    expect(healthcheck).toContain(entries.health.liveness);
    expect(execForm((healthcheck ?? "").replace(/^.*?CMD\s+/s, ""))[0]).toBe("node");
    expect(instructionTexts(runtime, "EXPOSE")).toEqual([String(entries.port)]);
    expect(imageEnv.PORT).toBe(String(entries.port));
    expect(imageEnv.HOST).toBe("0.0.0.0");
  });
});

describe("deploy/compose.yaml", () => {
  const values = readEnvFile();
  const compose = readCompose(values);
  const services = Object.fromEntries(tollgateServices(compose));
  const service = (name: string): ComposeService => {
    const found = services[name];
    if (!found) throw new Error(`no Tollgate service ${name}`);
    return found;
  };

  it("runs the release entries: migrate once, then two APIs and two indexers after it", () => {
    expect(service("migrate").command).toEqual([entries.entries.migrate]);
    expect(service("api").command).toEqual([entries.entries.api]);
    expect(service("indexer").command).toEqual([entries.entries.indexer]);
    expect(service("receipt-keys").command).toEqual([entries.cli.receiptKeys]);
    expect(service("api").deploy?.replicas).toBe(2);
    expect(service("indexer").deploy?.replicas).toBe(2);
    for (const name of ["api", "indexer", "receipt-keys"]) {
      expect(service(name).depends_on?.migrate?.condition).toBe("service_completed_successfully");
    }
    expect(service("migrate").depends_on?.postgres?.condition).toBe("service_healthy");
    expect(service("migrate").restart).toBe("no");
    // No HTTP in these: the image's /healthz check would mark them unhealthy.
    for (const name of ["migrate", "indexer", "receipt-keys"])
      expect(service(name).healthcheck?.disable).toBe(true);
    for (const [, tollgate] of Object.entries(services)) expect(tollgate.read_only).toBe(true);
  });

  it("the proxy sends to the API replicas' port, and the example env names every required variable", () => {
    const proxy = compose.services.proxy;
    expect(proxy?.depends_on?.api?.condition).toBe("service_healthy");
    const nginx = readFileSync(join(DEPLOY_DIR, "nginx", "tollgate.conf"), "utf8");
    expect(nginx).toMatch(new RegExp(`server api:${entries.port}\\b`));
    // Interpolation without the example's values fails like `docker compose up` does.
    expect(() => readCompose({})).toThrow(/required variable/);
    expect(existsSync(COMPOSE_FILE)).toBe(true);
  });

  it("every Tollgate service's environment is accepted by its process as production", () => {
    for (const [name, tollgate] of Object.entries(services)) {
      const explicit = composeProcessEnv(tollgate, {});
      const problems = processEnvProblems(
        processOf(tollgate.command),
        explicit,
        composeProcessEnv(tollgate, imageEnv),
      );
      expect({ service: name, problems }).toEqual({ service: name, problems: [] });
    }
  });

  it("replicas share one BASE_URL, database, webhook key, manifest and receipt keys; the API listens outside", () => {
    const envs = Object.values(services).map((tollgate) => ({
      process: processOf(tollgate.command),
      env: composeProcessEnv(tollgate, imageEnv),
    }));
    expect(differingShared(envs)).toEqual([]);
    expect(listensOutside(composeProcessEnv(service("api"), imageEnv))).toBe(true);
  });
});

describe("deploy/kubernetes", () => {
  const objects = readKubernetesFiles({ setup: true }).flatMap((file) => file.objects);
  const named = (kind: string, name: string): KubernetesObject => {
    const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name}`);
    return found;
  };
  const workloads = objects.filter((object) => object.kind === "Deployment" || object.kind === "Job");
  const temp = mkdtempSync(join(tmpdir(), "tollgate-deploy-"));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it("runs the release entries: the migration Job, two APIs, two indexers", () => {
    const argsOf = (object: KubernetesObject) => podSpecOf(object)?.containers[0]?.args;
    expect(argsOf(named("Job", "tollgate-migrate"))).toEqual([entries.entries.migrate]);
    expect(argsOf(named("Job", "tollgate-first-receipt-key"))).toEqual([entries.cli.receiptKeys]);
    // Never retried: a second run would schedule a rotation instead of making the first key.
    expect((named("Job", "tollgate-first-receipt-key").spec as { backoffLimit: number }).backoffLimit).toBe(
      0,
    );
    expect(argsOf(named("Deployment", "tollgate-api"))).toEqual([entries.entries.api]);
    expect(argsOf(named("Deployment", "tollgate-indexer"))).toEqual([entries.entries.indexer]);
    for (const name of ["tollgate-api", "tollgate-indexer"]) {
      expect((named("Deployment", name).spec as { replicas: number }).replicas).toBe(2);
    }
    for (const workload of workloads) {
      for (const container of podSpecOf(workload)?.containers ?? []) {
        expect(container.image.split(":")[0]).toBe("tollgate");
        expect(container.command).toBeUndefined(); // the image's ENTRYPOINT (tini, node) stays
      }
    }
  });

  it("probes the API: readiness on /readyz?scope=replica, liveness on /healthz, at the port it listens on", () => {
    const api = podSpecOf(named("Deployment", "tollgate-api"))?.containers[0] as Record<string, unknown>;
    const ports = api.ports as { name: string; containerPort: number }[];
    expect(ports).toEqual([{ name: "http", containerPort: entries.port }]);
    const probe = (key: string) => (api[key] as { httpGet: { path: string; port: string } }).httpGet;
    expect(probe("readinessProbe")).toEqual({ path: entries.health.readiness, port: "http" });
    expect(probe("livenessProbe")).toEqual({ path: entries.health.liveness, port: "http" });
    expect(probe("startupProbe")).toEqual({ path: entries.health.liveness, port: "http" });
  });

  it("every pod runs non-root with a read-only root filesystem, no privilege, and bounded resources", () => {
    for (const workload of workloads) {
      const pod = podSpecOf(workload);
      expect(pod?.securityContext, workload.metadata.name).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
      });
      for (const container of pod?.containers ?? []) {
        expect(container.securityContext, container.name).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(container.resources, container.name).toMatchObject({
          requests: { cpu: expect.any(String), memory: expect.any(String) },
          limits: { memory: expect.any(String) },
        });
      }
    }
  });

  it("the Service, the Ingress and the disruption budgets select the pods they are for", () => {
    const podLabels = (name: string) =>
      (named("Deployment", name).spec as { template: { metadata: { labels: Record<string, string> } } })
        .template.metadata.labels;
    const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    const service = named("Service", "tollgate-api").spec as { selector: Record<string, string> };
    expect(selects(service.selector, podLabels("tollgate-api"))).toBe(true);
    for (const name of ["tollgate-api", "tollgate-indexer"]) {
      const budget = named("PodDisruptionBudget", name).spec as {
        selector: { matchLabels: Record<string, string> };
      };
      expect(selects(budget.selector.matchLabels, podLabels(name))).toBe(true);
    }
    const ingress = JSON.stringify(named("Ingress", "tollgate-api").spec);
    expect(ingress).toContain('"service":{"name":"tollgate-api"');
  });

  it("the Secret holds placeholders only", () => {
    const data = named("Secret", "tollgate-secrets").stringData as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(Object.keys(SAMPLE_SECRETS).sort());
    for (const value of Object.values(data)) expect(value).toMatch(/^REPLACE_ME /);
  });

  it("every container's environment is accepted by its process as production (placeholders filled in)", () => {
    const manifest = join(temp, "deployments.json");
    const manifestData = named("ConfigMap", "tollgate-deployment-manifest").data as Record<string, string>;
    writeFileSync(manifest, manifestData["deployments.json"] ?? "");
    const filled = objects.map((object) =>
      object.kind === "Secret" ? { ...object, stringData: SAMPLE_SECRETS } : object,
    );
    for (const workload of workloads) {
      for (const container of podSpecOf(workload)?.containers ?? []) {
        const explicit = kubernetesProcessEnv(container, filled, {});
        // The parser reads the manifest the pod mounts; here, the placeholder's text at a local path.
        const env = { ...kubernetesProcessEnv(container, filled, imageEnv), DEPLOYMENT_MANIFEST: manifest };
        const problems = processEnvProblems(processOf(container.args), explicit, env);
        expect({ container: container.name, problems }).toEqual({ container: container.name, problems: [] });
      }
    }
  });

  it("replicas share one BASE_URL, database, webhook key, manifest and receipt keys; the API listens outside", () => {
    const filled = objects.map((object) =>
      object.kind === "Secret" ? { ...object, stringData: SAMPLE_SECRETS } : object,
    );
    const envs = workloads.flatMap((workload) =>
      (podSpecOf(workload)?.containers ?? []).map((container) => ({
        process: processOf(container.args),
        env: kubernetesProcessEnv(container, filled, imageEnv),
      })),
    );
    expect(differingShared(envs)).toEqual([]);
    const api = podSpecOf(named("Deployment", "tollgate-api"))?.containers[0];
    if (!api) throw new Error("no API container");
    expect(listensOutside(kubernetesProcessEnv(api, filled, imageEnv))).toBe(true);
  });

  it("the manifest is mounted where DEPLOYMENT_MANIFEST points", () => {
    const config = named("ConfigMap", "tollgate-config").data as Record<string, string>;
    expect(config.DEPLOYMENT_MANIFEST).toBe("/etc/tollgate/deployments.json");
    for (const workload of workloads) {
      const mounts = podSpecOf(workload)?.containers[0]?.volumeMounts as { mountPath: string }[] | undefined;
      expect(mounts?.map((mount) => mount.mountPath)).toContain("/etc/tollgate");
    }
  });
});
