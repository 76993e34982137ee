/** Where the deployment files live in the repository (absolute paths). */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DEPLOY_DIR = join(REPO_ROOT, "deploy");
export const DOCKERFILE = join(REPO_ROOT, "Dockerfile");
export const COMPOSE_FILE = join(DEPLOY_DIR, "compose.yaml");
export const COMPOSE_ENV_EXAMPLE = join(DEPLOY_DIR, "compose.env.example");
export const KUBERNETES_DIR = join(DEPLOY_DIR, "kubernetes");
export const ENTRIES_FILE = join(DEPLOY_DIR, "entries.json");
export const CONFIGURATION_DOC = join(REPO_ROOT, "docs", "configuration.md");
