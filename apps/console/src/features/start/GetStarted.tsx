import type { ReactNode } from "react";
import { Link } from "react-router";
import { Notice } from "../../components/ProblemBanner";
import { useLoad } from "../../hooks/useLoad";
import type { MerchantApi, MerchantProfile } from "../../lib/trpc";
import { Loaded, RefreshButton } from "../common/States";
import { readStartProgress, type StartProgress } from "./progress";
import { gateSample, testPaidCallCommands } from "./samples";
import { TestPaidCallButton } from "./TestPaidCallButton";

/**
 * Get started (decision 0074): the four steps from a new merchant to a paid call, with the merchant's own values,
 * each marked done from what the API can tell (progress.ts). Reachable at any time as its own section.
 */
export function GetStarted({
  api,
  merchant,
  notice,
  apiBaseUrl = window.location.origin,
}: {
  api: MerchantApi;
  merchant: MerchantProfile;
  notice?: string | undefined;
  /** The API's origin, as agents and the gate reach it (the console is served by the API). */
  apiBaseUrl?: string;
}) {
  const progress = useLoad(() => readStartProgress(api, merchant), merchant.updated_at);
  return (
    <section aria-labelledby="start-heading" data-testid="start-page">
      <div className="section-head">
        <h1 id="start-heading">Get started</h1>
        <RefreshButton load={progress} testId="start-refresh" />
      </div>
      <Notice message={notice} testId="start-notice" />
      <p>
        Four steps from here to your first paid call. Each is ticked from what Tollgate sees, so come back any
        time: this page is always in the menu.
      </p>
      <Loaded load={progress} what="your progress" testId="start">
        {(state) => (
          <Steps
            state={state}
            merchant={merchant}
            apiBaseUrl={apiBaseUrl}
            api={api}
            onPaid={progress.refresh}
          />
        )}
      </Loaded>
    </section>
  );
}

function Steps({
  state,
  merchant,
  apiBaseUrl,
  api,
  onPaid,
}: {
  state: StartProgress;
  merchant: MerchantProfile;
  apiBaseUrl: string;
  api: MerchantApi;
  onPaid: () => unknown;
}) {
  const id = merchant.merchant_id;
  const done = [
    state.gateway != null || (state.paidCalls ?? 0) > 0,
    state.webhookSet && state.testEventDelivered === true,
    (state.paidCalls ?? 0) > 0,
    state.listing === "published",
  ];
  return (
    <>
      <p role="status" data-testid="start-progress">
        {done.filter(Boolean).length} of {done.length} done
      </p>
      <ol className="steps">
        <Step key="gate" name="gate" title="Put your API behind the gate" done={done[0] === true}>
          <p>
            Add the gate middleware to your Express server (<code>npm install @tollgate/gate express</code>).
            Unpaid calls get a 402 with your price; paid ones reach your handler.
          </p>
          <pre className="sample" data-testid="start-gate-sample" {...scrollable("Gate middleware sample")}>
            <code>{gateSample({ merchantId: id, apiBaseUrl })}</code>
          </pre>
          <p className="muted">
            Or let Tollgate host it: set a route on the <Link to="/gateway">Gateway</Link> page
            {state.gateway ? (
              <>
                {" "}
                (yours: <code data-testid="start-gateway-url">{state.gateway.gateway_url}</code>)
              </>
            ) : null}
            . Tollgate cannot see your own server, so this step is ticked by a hosted route or a paid call.
          </p>
        </Step>
        <Step
          key="webhook"
          name="webhook"
          title="Set a webhook and send a test event"
          done={done[1] === true}
        >
          <p>
            {state.webhookSet ? (
              <>
                Webhook URL: <code>{merchant.webhook_url}</code>.{" "}
              </>
            ) : (
              "No webhook URL yet. "
            )}
            {state.testEventDelivered === undefined
              ? "Could not check the deliveries."
              : state.testEventDelivered
                ? "A test event was delivered."
                : "No test event delivered yet."}
          </p>
          <p>
            <Link to="/webhooks" data-testid="start-webhooks-link">
              Open Webhooks
            </Link>{" "}
            to set the URL, create the signing secret and send a test event.
          </p>
        </Step>
        <Step key="paid-call" name="paid-call" title="Make a test paid call" done={done[2] === true}>
          <PaidCallStep state={state} merchant={merchant} apiBaseUrl={apiBaseUrl} api={api} onPaid={onPaid} />
        </Step>
        <Step key="listing" name="listing" title="Publish a listing" done={done[3] === true}>
          <p>
            {state.listing === "published"
              ? "Your listing is public in the marketplace."
              : state.listing === "pending"
                ? "Your listing waits for an operator's review."
                : state.listing === "none"
                  ? "No listing yet: agents find you in the marketplace once one is approved."
                  : "Could not check the listings."}{" "}
            <Link to="/listings" data-testid="start-listings-link">
              Open Listings
            </Link>
          </p>
        </Step>
      </ol>
    </>
  );
}

/**
 * The paid call runs on the local chains of the dev stack: test-mode merchants only. Where the API offers it
 * (decision 0075) a button runs it; the two commands stay as the way to run it by hand, open when there is no button.
 */
function PaidCallStep({
  state,
  merchant,
  apiBaseUrl,
  api,
  onPaid,
}: {
  state: StartProgress;
  merchant: MerchantProfile;
  apiBaseUrl: string;
  api: MerchantApi;
  onPaid: () => unknown;
}) {
  const calls =
    state.paidCalls === undefined
      ? "Could not check the paid calls."
      : state.paidCalls > 0
        ? `${state.paidCalls} paid ${state.paidCalls === 1 ? "call" : "calls"} so far.`
        : "No paid call yet.";
  if (merchant.network_mode !== "test") {
    return (
      <p data-testid="start-paid-call-live">
        {calls} This merchant settles on a live network: test paid calls run with test-mode merchants on the
        local chains of <code>pnpm start</code>.
      </p>
    );
  }
  const offer = state.testPaidCall;
  return (
    <>
      <p>{calls}</p>
      {offer?.available ? (
        <TestPaidCallButton
          api={api}
          merchantId={merchant.merchant_id}
          network={offer.network}
          tier={offer.tier}
          unitPrice={offer.unit_price}
          onPaid={onPaid}
        />
      ) : (
        <p className="muted" data-testid="start-test-call-unavailable">
          {offer
            ? `No test paid call button here: ${offer.detail}.`
            : "Could not check whether the API runs test paid calls."}
        </p>
      )}
      <details open={!offer?.available} data-testid="start-paid-call-manual">
        <summary>Run it by hand</summary>
        <ManualPaidCall state={state} merchant={merchant} apiBaseUrl={apiBaseUrl} />
      </details>
    </>
  );
}

/** The two commands of decision 0074: the example merchant gated for this merchant, and the demo agent paying it. */
function ManualPaidCall({
  state,
  merchant,
  apiBaseUrl,
}: {
  state: StartProgress;
  merchant: MerchantProfile;
  apiBaseUrl: string;
}) {
  return (
    <>
      <p>
        With <code>pnpm start</code> running, these two commands from the repository root serve a gated API
        for you and pay one call with the dev stack's funded demo agent on {merchant.settlement_chain}.
      </p>
      {state.chainId === undefined ? (
        <p className="muted">The settlement network's chain id could not be read: refresh to try again.</p>
      ) : (
        <pre
          className="sample"
          data-testid="start-paid-call-commands"
          {...scrollable("Test paid call commands")}
        >
          <code>
            {testPaidCallCommands({
              merchantId: merchant.merchant_id,
              apiBaseUrl,
              network: merchant.settlement_chain,
              chainId: state.chainId,
            })}
          </code>
        </pre>
      )}
    </>
  );
}

/** A sample scrolls sideways inside its own box: keyboard users reach it (tab stop) and hear what it is. */
function scrollable(label: string) {
  return { tabIndex: 0, role: "region", "aria-label": label } as const;
}

function Step({
  name,
  title,
  done,
  children,
}: {
  name: string;
  title: string;
  done: boolean;
  children: ReactNode;
}) {
  return (
    <li className="card" data-testid={`start-step-${name}`} data-done={done ? "true" : "false"}>
      <h2>
        {title}{" "}
        <span
          className={done ? "step-state step-state--done" : "step-state"}
          data-testid={`start-${name}-state`}
        >
          {done ? "Done" : "To do"}
        </span>
      </h2>
      {children}
    </li>
  );
}
