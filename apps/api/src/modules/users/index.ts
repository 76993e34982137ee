/** The users module's public entry. */
export type { UsersModuleDeps } from "./deps";
export { usersModule } from "./router";
export { createUserAuth, type UserAuth } from "./user-procedure";
export { buildUserSignin, type UserSignin, type UsersConfig } from "./user-signin";
