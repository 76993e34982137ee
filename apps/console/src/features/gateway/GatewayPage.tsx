import { useState } from "react";
import { Field } from "../../components/Field";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { errorFor, toFormProblem } from "../../lib/errors";
import type { GatewayRoute, MerchantApi, MerchantProfile } from "../../lib/trpc";
import { ActionButton, SubmitActions } from "../../ui/ActionButton";
import { OnceSecret } from "../common/States";

type RouteForm = { slug: string; upstream_url: string; tier: string };
const ROUTE_FIELDS: readonly [keyof RouteForm, string, string][] = [
  ["slug", "Slug", "gateway-slug"],
  ["upstream_url", "Upstream URL", "gateway-upstream"],
  ["tier", "Tier", "gateway-tier"],
];

/** Hosted gateway (docs/merchants.md): the route agents call at /g/<slug>, and its origin secret. */
export function GatewayPage({ api, merchant }: { api: MerchantApi; merchant: MerchantProfile }) {
  const id = merchant.merchant_id;
  // "No route yet" is read as `route: null` (200), never as a 404 the browser logs as an error (decision 0074).
  const gateway = useLoad(() => api.currentGateway(id));
  const current = gateway.data ?? null;
  const [form, setForm] = useState<RouteForm>();
  const values = form ?? {
    slug: current?.slug ?? "",
    upstream_url: current?.upstream_url ?? "",
    tier: current?.tier ?? "standard",
  };
  const [secret, setSecret] = useState<string>();
  const { busy, problem, notice, run, setNotice } = useAction();

  /** A saved route shows its origin secret once (the API sends it on creation and rotation only). */
  const act = (what: () => Promise<GatewayRoute>, done: string) =>
    run(async () => {
      const route = await what();
      if (route.origin_secret) setSecret(route.origin_secret);
      setNotice(done);
      setForm(undefined);
      await gateway.reload();
    });

  const err = (path: string) => errorFor(problem?.errors ?? [], path);
  return (
    <section aria-labelledby="gateway-heading" data-testid="gateway-page">
      <h1 id="gateway-heading">Hosted gateway</h1>
      <ProblemBanner problem={problem} testId="gateway-problem" />
      <Notice message={notice} testId="gateway-notice" />
      {secret ? <OnceSecret label="Origin secret" value={secret} testId="gateway-origin-secret" /> : null}
      {gateway.status === "loading" && gateway.data === undefined && gateway.error === undefined ? (
        <p role="status" className="muted">
          Loading the gateway route…
        </p>
      ) : null}
      {gateway.error !== undefined ? (
        <ProblemBanner problem={toFormProblem(gateway.error)} testId="gateway-load-problem" />
      ) : null}
      <div className="grid">
        <section className="card" aria-labelledby="gateway-current-heading">
          <h2 id="gateway-current-heading">Current route</h2>
          {current ? (
            <RouteFacts route={current} />
          ) : (
            <p className="muted" data-testid="gateway-empty">
              No hosted gateway route yet.
            </p>
          )}
          {current ? (
            <ActionButton
              busy={busy}
              className="button button--secondary"
              testId="gateway-rotate"
              onClick={() =>
                act(() => api.rotateOriginSecret(id), "Origin secret rotated: update your upstream.")
              }
            >
              Rotate origin secret
            </ActionButton>
          ) : null}
        </section>
        <form
          className="card form"
          aria-labelledby="gateway-form-heading"
          onSubmit={(event) => {
            event.preventDefault();
            void act(
              () =>
                api.setGateway({
                  id,
                  slug: values.slug.trim(),
                  upstream_url: values.upstream_url.trim(),
                  tier: values.tier.trim(),
                }),
              "Gateway route saved.",
            );
          }}
        >
          <h2 id="gateway-form-heading">{current ? "Change the route" : "Configure the route"}</h2>
          {ROUTE_FIELDS.map(([key, label, testId]) => (
            <Field
              key={key}
              label={label}
              testId={testId}
              value={values[key]}
              onChange={(e) => setForm({ ...values, [key]: e.target.value })}
              error={err(key)}
            />
          ))}
          <SubmitActions busy={busy} testId="gateway-save" label="Save route" />
        </form>
      </div>
    </section>
  );
}

/** Where agents call, where it forwards, and the header that proves a request came through the gateway. */
function RouteFacts({ route }: { route: GatewayRoute }) {
  return (
    <dl className="facts" data-testid="gateway-current">
      <dt>Agents call</dt>
      <dd>
        {/* gateway_url already ends with the slug (gateway-route-view.ts): agents add only their path. */}
        <code data-testid="gateway-agent-url">{route.gateway_url}/…</code>
      </dd>
      <dt>Forwards to</dt>
      <dd>
        <code>{route.upstream_url}</code>
      </dd>
      <dt>Tier</dt>
      <dd>{route.tier}</dd>
      <dt>Origin secret header</dt>
      <dd>
        <code>{route.origin_secret_header}</code>
      </dd>
    </dl>
  );
}
