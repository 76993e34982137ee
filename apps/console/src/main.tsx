import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App";
import { readSecret } from "./lib/session";
import { createMerchantApi } from "./lib/trpc";
import "./styles.css";
import { applyTheme } from "./theme/theme";

// The remembered theme before the first paint (decision 0073), so a dark page never flashes light.
applyTheme();

// The operator console is its own chunk: the merchant pages never download it.
const AdminApp = lazy(() => import("./admin/AdminApp"));
const isAdmin = /^\/console\/admin(\/|$)/.test(window.location.pathname);

const root = document.getElementById("root");
if (!root) throw new Error("index.html lacks #root");

function merchant() {
  // The API serves the console and /trpc from the same origin (Vite's dev server proxies /trpc to it).
  const api = createMerchantApi({ baseUrl: window.location.origin, getSecret: readSecret });
  // Each section is a path under /console/ (decision 0069), routed as the operator console is.
  return (
    <BrowserRouter basename="/console">
      <App api={api} />
    </BrowserRouter>
  );
}

createRoot(root).render(
  <StrictMode>
    {isAdmin ? (
      <Suspense fallback={<p role="status">Loading the operator console…</p>}>
        <AdminApp />
      </Suspense>
    ) : (
      merchant()
    )}
  </StrictMode>,
);
