import { numeric } from "drizzle-orm/pg-core";

/** Atomic token amounts: uint256 fits numeric(78,0); drizzle hands them over as decimal strings. */
export const atomic = (name: string) => numeric(name, { precision: 78, scale: 0 });
