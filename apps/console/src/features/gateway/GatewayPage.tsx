import { useState } from "react";
import { Field } from "../../components/Field";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { errorFor, problemOf, toFormProblem } from "../../lib/errors";
import type { GatewayRoute, MerchantApi, MerchantProfile } from "../../lib/trpc";
import { OnceSecret } from "../common/States";

/** Hosted gateway (issue 14; docs/merchants.md): the route agents call at /g/<slug>, and its origin secret. */
export function GatewayPage({ api, merchant }: { api: MerchantApi; merchant: MerchantProfile }) {
  const id = merchant.merchant_id;
  const gateway = useLoad(async (): Promise<GatewayRoute | null> => {
    try {
      return await api.getGateway(id);
    } catch (error) {
      if (problemOf(error)?.code === "gateway_route_not_found") return null;
      throw error;
    }
  });
  const current = gateway.data ?? null;
  const [form, setForm] = useState<{ slug: string; upstream_url: string; tier: string }>();
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
            <dl className="facts" data-testid="gateway-current">
              <dt>Agents call</dt>
              <dd>
                <code>
                  {current.gateway_url}/{current.slug}/…
                </code>
              </dd>
              <dt>Forwards to</dt>
              <dd>
                <code>{current.upstream_url}</code>
              </dd>
              <dt>Tier</dt>
              <dd>{current.tier}</dd>
              <dt>Origin secret header</dt>
              <dd>
                <code>{current.origin_secret_header}</code>
              </dd>
            </dl>
          ) : (
            <p className="muted" data-testid="gateway-empty">
              No hosted gateway route yet.
            </p>
          )}
          {current ? (
            <button
              type="button"
              className="button button--secondary"
              disabled={busy}
              data-testid="gateway-rotate"
              onClick={() =>
                void act(() => api.rotateOriginSecret(id), "Origin secret rotated: update your upstream.")
              }
            >
              Rotate origin secret
            </button>
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
          <Field
            label="Slug"
            testId="gateway-slug"
            value={values.slug}
            onChange={(e) => setForm({ ...values, slug: e.target.value })}
            error={err("slug")}
          />
          <Field
            label="Upstream URL"
            testId="gateway-upstream"
            value={values.upstream_url}
            onChange={(e) => setForm({ ...values, upstream_url: e.target.value })}
            error={err("upstream_url")}
          />
          <Field
            label="Tier"
            testId="gateway-tier"
            value={values.tier}
            onChange={(e) => setForm({ ...values, tier: e.target.value })}
            error={err("tier")}
          />
          <div className="actions">
            <button type="submit" className="button" disabled={busy} data-testid="gateway-save">
              Save route
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}
