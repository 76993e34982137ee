/**
 * Schema checks, offline (docs/decisions/0062-containers-orchestration-and-configuration-reference.md):
 * - compose files against the Compose Specification JSON schema shipped by `dclint` (compiled with ajv);
 * - Kubernetes objects against the Kubernetes OpenAPI schemas shipped, as ajv-compiled validators, by
 *   `kubernetes-models` (types, required fields, enums, formats; like the API server's non-strict mode it lets an
 *   unknown field through, so the facts tests read every field that matters by name).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Deployment } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Secret, Service } from "kubernetes-models/v1";
import type { KubernetesObject } from "./deploy-files";

let composeValidator: ValidateFunction | undefined;

/** The Compose Specification schema as dclint ships it (schemas/compose.schema.json, not in its exports map). */
export function composeSchemaPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("dclint/package.json")), "schemas", "compose.schema.json");
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? ""}`).join("; ");
}

/** The problems of a compose document (merge keys applied), or an empty list. */
export function composeProblems(document: unknown): string[] {
  if (!composeValidator) {
    const { $schema, ...schema } = JSON.parse(readFileSync(composeSchemaPath(), "utf8")) as Record<
      string,
      unknown
    >;
    // The schema is draft-07, ajv's default; its `$schema` spells the draft's URL in a form ajv does not map.
    if ($schema !== "https://json-schema.org/draft-07/schema")
      throw new Error(`unexpected compose schema ${$schema}`);
    // strict off: the spec's schema uses annotations ajv's strict mode refuses (`deprecated`).
    composeValidator = new Ajv({ strict: false, allErrors: true }).compile(schema);
  }
  return composeValidator(document) ? [] : [formatErrors(composeValidator.errors)];
}

interface Validatable {
  validate(): void;
}

/** The models this deployment uses, by `apiVersion/kind`. */
const MODELS: Record<string, new (data: never) => Validatable> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "batch/v1/Job": Job,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/Ingress": Ingress,
};

/** The problems of one Kubernetes object, or an empty list. A kind without a model here is a problem too. */
export function kubernetesProblems(object: KubernetesObject): string[] {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model)
    return [`${object.apiVersion} ${object.kind}: no schema model registered in deploy/src/validate.ts`];
  try {
    new Model(object as never).validate();
    return [];
  } catch (error) {
    return [
      `${object.kind} ${object.metadata?.name}: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
}
