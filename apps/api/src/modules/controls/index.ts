/** The controls module's public entry. */
export { ZHaltView } from "./admin-resume-network.types";
export type { ControlsDeps } from "./deps";
export { configDrift } from "./network-config-service";
export { type HaltView, listOpenHalts } from "./network-halt-service";
export { createOnchainPauser, type OnchainPauser } from "./onchain-pause";
export { createPauseGate, listPauses, type PauseGate, type PauseView } from "./pause-service";
export { controlsModule } from "./router";
