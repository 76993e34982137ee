/**
 * Reads the deployment files the way the tools that run them do, for the checks in deploy/test
 * (docs/decisions/0062-containers-orchestration-and-configuration-reference.md): the Dockerfile through
 * dockerfile-ast, the compose file with YAML merge keys and `${VAR}` interpolation, the Kubernetes manifests as
 * YAML documents, and what environment each Tollgate container ends up with.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DockerfileParser, type Instruction } from "dockerfile-ast";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { COMPOSE_ENV_EXAMPLE, COMPOSE_FILE, DOCKERFILE, ENTRIES_FILE, KUBERNETES_DIR } from "./paths";

export interface Entries {
  workdir: string;
  node: string[];
  entries: { api: string; indexer: string; migrate: string };
  cli: Record<string, string>;
  port: number;
  health: { liveness: string; readiness: string };
}

export function readEntries(): Entries {
  return JSON.parse(readFileSync(ENTRIES_FILE, "utf8")) as Entries;
}

export class DeployFileError extends Error {
  override readonly name = "DeployFileError";
}

// ---------------------------------------------------------------- Dockerfile

export interface DockerStage {
  /** `FROM <image> AS <name>`: the image as written (an ARG stays `${NODE_IMAGE}`) and the stage name. */
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface DockerfileFacts {
  args: Record<string, string>;
  stages: DockerStage[];
}

export function readDockerfile(text = readFileSync(DOCKERFILE, "utf8")): DockerfileFacts {
  const dockerfile = DockerfileParser.parse(text);
  const args: Record<string, string> = {};
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    const name = property?.getName();
    if (name) args[name] = property?.getValue() ?? "";
  }
  const stages: DockerStage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === "FROM") {
      const from = dockerfile
        .getFROMs()
        .find((f) => f.getRange().start.line === instruction.getRange().start.line);
      stages.push({
        image: from?.getImage() ?? "",
        name: from?.getBuildStage() ?? undefined,
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** A stage's instructions with this keyword, each as written after the keyword (flags included). */
export function instructionTexts(stage: DockerStage, keyword: string): string[] {
  return stage.instructions
    .filter((instruction) => instruction.getKeyword() === keyword)
    .map((instruction) =>
      instruction
        .getTextContent()
        .replace(/^\s*\S+\s+/, "")
        .trim(),
    );
}

/** An exec-form (JSON array) instruction's arguments; shell form is refused. */
export function execForm(text: string): string[] {
  const trimmed = text.replace(/\\\r?\n/g, " ").trim();
  const parsed: unknown = trimmed.startsWith("[") ? JSON.parse(trimmed) : undefined;
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) {
    throw new DeployFileError(`not an exec-form instruction: ${text}`);
  }
  return parsed;
}

/** The ENV of a stage (name → value, later ones win). */
export function stageEnv(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const instruction of stage.instructions) {
    if (instruction.getKeyword() !== "ENV") continue;
    for (const property of (instruction as unknown as EnvInstruction).getProperties()) {
      env[property.getName()] = property.getValue() ?? "";
    }
  }
  return env;
}

interface EnvInstruction {
  getProperties(): { getName(): string; getValue(): string | null }[];
}

// ---------------------------------------------------------------- compose

/** `KEY=value` lines (comments and blank lines skipped), as docker compose reads an env file. */
export function readEnvFile(path = COMPOSE_ENV_EXAMPLE): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1]) values[match[1]] = match[2] ?? "";
  }
  return values;
}

const INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;

/** The variables a text interpolates, with whether they are required (`${VAR:?message}`). */
export function interpolatedNames(text: string): { name: string; required: boolean }[] {
  return [...text.matchAll(INTERPOLATION)].map((match) => ({
    name: match[1] ?? "",
    required: (match[2] ?? "").endsWith("?"),
  }));
}

/** Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?error}`; an unset required variable throws, as compose does. */
export function interpolate(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(INTERPOLATION, (_whole, name: string, operator: string | undefined, rest: string) => {
    const value = values[name];
    const unset = value === undefined || (operator?.startsWith(":") === true && value === "");
    if (!unset) return value;
    if (operator?.endsWith("?")) throw new DeployFileError(`required variable ${name} is missing: ${rest}`);
    return operator?.endsWith("-") ? rest : "";
  });
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  [key: string]: unknown;
}

export interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition?: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { disable?: boolean; test?: string[] };
  profiles?: string[];
  read_only?: boolean;
  [key: string]: unknown;
}

/**
 * The compose file as compose sees it: parsed with merge keys, then, with `values`, every string interpolated
 * (after parsing, as compose does: `0x…` from a variable stays a string).
 */
export function readCompose(values?: Readonly<Record<string, string>>, text?: string): ComposeFile {
  const parsed: unknown = parseYaml(text ?? readFileSync(COMPOSE_FILE, "utf8"), { merge: true });
  return (values ? interpolateStrings(parsed, values) : parsed) as ComposeFile;
}

function interpolateStrings(node: unknown, values: Readonly<Record<string, string>>): unknown {
  if (typeof node === "string") return interpolate(node, values);
  if (Array.isArray(node)) return node.map((item) => interpolateStrings(item, values));
  if (node !== null && typeof node === "object") {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateStrings(value, values)]),
    );
  }
  return node;
}

/** The Tollgate services: those built from this repository's Dockerfile. */
export function tollgateServices(compose: ComposeFile): [string, ComposeService][] {
  return Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
}

/** A compose service's environment as the process sees it: the image's ENV, then the service's. */
export function composeProcessEnv(
  service: ComposeService,
  imageEnv: Record<string, string>,
): Record<string, string> {
  const env = { ...imageEnv };
  for (const [name, value] of Object.entries(service.environment ?? {})) {
    if (value !== null) env[name] = String(value);
  }
  return env;
}

// ---------------------------------------------------------------- Kubernetes

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

export interface KubernetesFile {
  file: string;
  objects: KubernetesObject[];
}

/**
 * Every YAML file of deploy/kubernetes but the kustomization, each as its documents; with `setup`, also the
 * one-off objects under setup/ (applied by hand once, not by the kustomization).
 */
export function readKubernetesFiles(options: { setup?: boolean } = {}): KubernetesFile[] {
  const read = (folder: string, prefix: string) =>
    readdirSync(folder)
      .filter((file) => /\.ya?ml$/.test(file) && file !== "kustomization.yaml")
      .sort()
      .map((file) => ({
        file: `${prefix}${file}`,
        objects: parseKubernetesYaml(readFileSync(join(folder, file), "utf8"), `${prefix}${file}`),
      }));
  const files = read(KUBERNETES_DIR, "");
  return options.setup ? [...files, ...read(join(KUBERNETES_DIR, "setup"), "setup/")] : files;
}

export function parseKubernetesYaml(text: string, source: string): KubernetesObject[] {
  return parseAllDocuments(text).map((document, index) => {
    if (document.errors.length > 0) {
      throw new DeployFileError(`${source} document ${index + 1}: ${document.errors[0]?.message}`);
    }
    return document.toJS() as KubernetesObject;
  });
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      configMapKeyRef?: { name: string; key: string };
      secretKeyRef?: { name: string; key: string };
    };
  }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
  volumes?: Record<string, unknown>[];
  [key: string]: unknown;
}

/** The pod template of a Deployment or a Job. */
export function podSpecOf(object: KubernetesObject): PodSpec | undefined {
  const spec = object.spec as { template?: { spec?: PodSpec } } | undefined;
  return spec?.template?.spec;
}

/** A container's environment: the image's ENV, then envFrom in order, then env (later wins, as the kubelet does). */
export function kubernetesProcessEnv(
  container: Container,
  objects: readonly KubernetesObject[],
  imageEnv: Record<string, string>,
): Record<string, string> {
  const dataOf = (kind: "ConfigMap" | "Secret", name: string): Record<string, string> => {
    const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!object) throw new DeployFileError(`${kind} ${name} is not in deploy/kubernetes`);
    const data = (kind === "Secret" ? object.stringData : object.data) as Record<string, string> | undefined;
    return data ?? {};
  };
  const env = { ...imageEnv };
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, dataOf("ConfigMap", source.configMapRef.name));
    if (source.secretRef) Object.assign(env, dataOf("Secret", source.secretRef.name));
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.configMapKeyRef ?? variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (ref) {
      const value = dataOf(variable.valueFrom?.secretKeyRef ? "Secret" : "ConfigMap", ref.name)[ref.key];
      if (value === undefined)
        throw new DeployFileError(`${variable.name}: no key ${ref.key} in ${ref.name}`);
      env[variable.name] = value;
    }
  }
  return env;
}
