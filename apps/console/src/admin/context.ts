import { createContext, useContext } from "react";
import type { AdminClient, AdminMe } from "./api";

export interface AdminSession {
  client: AdminClient;
  me: AdminMe;
  /** false for viewers: every state-changing control is disabled (the API refuses them anyway). */
  canAct: boolean;
}

export const AdminContext = createContext<AdminSession | undefined>(undefined);

export function useAdmin(): AdminSession {
  const session = useContext(AdminContext);
  if (!session) throw new Error("useAdmin outside the signed-in operator console");
  return session;
}
