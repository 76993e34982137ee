import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// findBy* waits up to 10 s, not 1 s: on a loaded 2-core CI machine a section's first render can take longer. A wait
// bound, not a timing assertion: a test still fails when the element never comes.
configure({ asyncUtilTimeout: 10_000 });

// vitest globals are off, so @testing-library cannot register its own cleanup.
afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
  window.localStorage.clear();
});
