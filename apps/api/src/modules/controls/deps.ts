import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { ChainRegistry } from "../chains";
import type { AdminAuth } from "../operators";
import type { OnchainPauser } from "./onchain-pause";
import type { PauseGate } from "./pause-service";

/** What the controls module is handed by the app (docs/architecture.md). */
export interface ControlsDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  adminAuth: AdminAuth;
  /** This process's pause gate: a pause or unpause here is seen at once, elsewhere within PAUSE_POLL_MS. */
  pause: PauseGate;
  /** The splitters' own pause(), when PAUSER_PRIVATE_KEY is set. */
  onchainPauser: OnchainPauser | undefined;
  /** Where the deployment manifest is read from (initialize-config records it). */
  env: { chains: { manifestPath: string } };
  /** Called once a network configuration is recorded (the overview drops its cached drift read). */
  onConfigRecorded(): void;
}
