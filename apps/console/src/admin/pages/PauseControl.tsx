/**
 * Pause state and the pause/unpause control (docs/operators.md "Pause"): a confirmation with scope and reason;
 * the answer says at once what is refused now (new quotes answer 503 service_paused).
 */
import { useState } from "react";
import { useLoad } from "../../hooks/useLoad";
import { fetchNetworks } from "../../lib/networks";
import { FormDialog, TextAreaField } from "../../ui/Dialog";
import { FilterBar, SelectFilter } from "../../ui/Filters";
import type { Overview, PauseScope } from "../api";
import { useAdmin } from "../context";
import { Time } from "../ui";

type Pending = { action: "pause" | "unpause"; scope: PauseScope };

export function PauseControl({ pause, onChanged }: { pause: Overview["pause"]; onChanged: () => void }) {
  const { client, canAct } = useAdmin();
  const [scope, setScope] = useState<PauseScope>("all");
  const [pending, setPending] = useState<Pending>();
  const [notice, setNotice] = useState<string>();
  const scopes = pause?.scopes ?? [];
  const paused = new Set(scopes.map((s) => s.scope));
  // `all`, then every network the API lists (decision 0057): the scopes are the service's own networks.
  const networks = useLoad(() => fetchNetworks(window.location.origin), "networks").data;
  const scopeOptions: PauseScope[] = ["all", ...(networks ?? []).map((network) => network.name)];

  return (
    <section className="section" aria-labelledby="pause-title" data-testid="pause-panel">
      <h2 id="pause-title">Pause</h2>
      {pause === null ? <p className="muted">The pause state is not reported by this API.</p> : null}
      {scopes.length === 0 ? (
        <p data-testid="pause-state">Serving: new quotes are accepted on every network.</p>
      ) : (
        <ul data-testid="pause-state">
          {scopes.map((s) => (
            <li key={s.scope} data-testid={`paused-${s.scope}`}>
              <strong>{s.scope === "all" ? "All networks" : s.scope}</strong> paused since{" "}
              <Time at={s.since} />: “{s.reason}”. New quotes there are refused (503{" "}
              <code>service_paused</code>).{" "}
              <button
                type="button"
                className="button button--secondary"
                disabled={!canAct}
                onClick={() => setPending({ action: "unpause", scope: s.scope as PauseScope })}
                data-testid={`unpause-${s.scope}`}
              >
                Unpause {s.scope}
              </button>
            </li>
          ))}
        </ul>
      )}
      {notice ? (
        <p className="banner banner--warning" role="status" data-testid="pause-notice">
          {notice}
        </p>
      ) : null}
      <FilterBar>
        <SelectFilter
          label="Scope"
          value={scope}
          options={scopeOptions}
          optionLabel={(s) => (s === "all" ? "all networks" : s)}
          onChange={(event) => setScope(event.target.value as PauseScope)}
          testId="pause-scope"
          disabled={!canAct}
        />
        <button
          type="button"
          className="button button--danger"
          disabled={!canAct || paused.has(scope)}
          onClick={() => setPending({ action: "pause", scope })}
          data-testid="pause-open"
        >
          Pause {scope}…
        </button>
      </FilterBar>
      {pending ? (
        <ConfirmPause
          pending={pending}
          onCancel={() => setPending(undefined)}
          onDone={(message) => {
            setPending(undefined);
            setNotice(message);
            onChanged();
          }}
          act={(reason) =>
            pending.action === "pause"
              ? client.admin.pause.mutate({ scope: pending.scope, reason })
              : client.admin.unpause.mutate({ scope: pending.scope, reason })
          }
        />
      ) : null}
    </section>
  );
}

function ConfirmPause({
  pending,
  onCancel,
  onDone,
  act,
}: {
  pending: Pending;
  onCancel: () => void;
  onDone: (message: string) => void;
  act: (reason: string) => Promise<{ paused: { scope: string }[] }>;
}) {
  const [reason, setReason] = useState("");
  const where = pending.scope === "all" ? "every network" : pending.scope;
  const pausing = pending.action === "pause";

  return (
    <FormDialog
      title={`${pausing ? "Pause" : "Unpause"} ${where}?`}
      onCancel={onCancel}
      testId="pause-dialog"
      problemTestId="pause-problem"
      intro={
        <p>
          {pausing
            ? `New quotes, bridge challenges and hosted-gateway sales on ${where} will answer 503 until unpaused.`
            : `New quotes on ${where} will be accepted again.`}
        </p>
      }
      submitLabel={`${pausing ? "Pause" : "Unpause"} ${pending.scope}`}
      submitClassName="button button--danger"
      submitTestId="pause-confirm"
      onSubmit={async () => {
        const still = (await act(reason)).paused.map((p) => p.scope);
        return pausing
          ? `Paused ${where}: new quotes there are refused now with 503 service_paused (payments already sent are honoured).`
          : `Unpaused ${where}: quotes are accepted again${still.length ? `, except where still paused: ${still.join(", ")}` : ""}.`;
      }}
      onDone={onDone}
    >
      {(errors) => (
        <TextAreaField
          id="pause-reason"
          label="Reason (recorded in the audit log)"
          value={reason}
          onChange={setReason}
          errors={errors}
          path="reason"
          minLength={3}
          maxLength={500}
          testId="pause-reason"
        />
      )}
    </FormDialog>
  );
}
