import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { readSecret } from "./lib/session";
import { createMerchantApi } from "./lib/trpc";
import "./styles.css";

// The API serves the console and /trpc from the same origin (Vite's dev server proxies /trpc to it).
const api = createMerchantApi({ baseUrl: window.location.origin, getSecret: readSecret });

const root = document.getElementById("root");
if (!root) throw new Error("index.html lacks #root");
createRoot(root).render(
  <StrictMode>
    <App api={api} />
  </StrictMode>,
);
