/**
 * The signed-in merchant secret lives in sessionStorage only: it ends with the tab and is never written to
 * localStorage (DESIGN.md §9: the secret is a server-side credential).
 */
const KEY = "tollgate.console.merchantSecret";

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    // Storage can be blocked (privacy settings); the console then keeps the secret in memory only.
    return undefined;
  }
}

let memory: string | undefined;

export function readSecret(): string | undefined {
  return storage()?.getItem(KEY) ?? memory;
}

export function storeSecret(secret: string): void {
  memory = secret;
  storage()?.setItem(KEY, secret);
}

export function clearSecret(): void {
  memory = undefined;
  storage()?.removeItem(KEY);
}
