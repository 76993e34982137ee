// Compiles the contracts (offline, incremental) once before any contract test runs, so
// `pnpm test` works on a fresh clone without a separate compile step.
import { compileContracts, loadHardhat } from "../src/hardhat";

export default async function setup(): Promise<void> {
  await compileContracts(loadHardhat());
}
