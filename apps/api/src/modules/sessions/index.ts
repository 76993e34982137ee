/** The sessions module's public entry: what operator and user sessions share (DESIGN.md §9). */

export * from "./session-store";
export * from "./session-tokens";
