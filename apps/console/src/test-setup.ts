import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

// vitest globals are off, so @testing-library cannot register its own cleanup.
afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
  window.localStorage.clear();
});
