/**
 * Pause state and the pause/unpause control (docs/operators.md "Pause"): a confirmation with scope and reason;
 * the answer says at once what is refused now (new quotes answer 503 service_paused).
 */
import { type FormEvent, useState } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import { errorFor, type FormProblem, toFormProblem } from "../../lib/errors";
import { type Overview, PAUSE_SCOPES, type PauseScope } from "../api";
import { useAdmin } from "../context";
import { Dialog, Time } from "../ui";

type Pending = { action: "pause" | "unpause"; scope: PauseScope };

export function PauseControl({ pause, onChanged }: { pause: Overview["pause"]; onChanged: () => void }) {
  const { client, canAct } = useAdmin();
  const [scope, setScope] = useState<PauseScope>("all");
  const [pending, setPending] = useState<Pending>();
  const [notice, setNotice] = useState<string>();
  const scopes = pause?.scopes ?? [];
  const paused = new Set(scopes.map((s) => s.scope));

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
      <div className="filters">
        <label>
          Scope
          <select
            value={scope}
            onChange={(event) => setScope(event.target.value as PauseScope)}
            data-testid="pause-scope"
            disabled={!canAct}
          >
            {PAUSE_SCOPES.map((s) => (
              <option key={s} value={s}>
                {s === "all" ? "all networks" : s}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button button--danger"
          disabled={!canAct || paused.has(scope)}
          onClick={() => setPending({ action: "pause", scope })}
          data-testid="pause-open"
        >
          Pause {scope}…
        </button>
      </div>
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
  const [problem, setProblem] = useState<FormProblem>();
  const [busy, setBusy] = useState(false);
  const where = pending.scope === "all" ? "every network" : pending.scope;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await act(reason);
      const still = result.paused.map((p) => p.scope);
      onDone(
        pending.action === "pause"
          ? `Paused ${where}: new quotes there are refused now with 503 service_paused (payments already sent are honoured).`
          : `Unpaused ${where}: quotes are accepted again${still.length ? `, except where still paused: ${still.join(", ")}` : ""}.`,
      );
    } catch (error) {
      setProblem(toFormProblem(error));
      setBusy(false);
    }
  }

  return (
    <Dialog
      title={`${pending.action === "pause" ? "Pause" : "Unpause"} ${where}?`}
      onCancel={onCancel}
      testId="pause-dialog"
    >
      <p>
        {pending.action === "pause"
          ? `New quotes, bridge challenges and hosted-gateway sales on ${where} will answer 503 until unpaused.`
          : `New quotes on ${where} will be accepted again.`}
      </p>
      <ProblemBanner problem={problem} testId="pause-problem" />
      <form onSubmit={submit}>
        <label htmlFor="pause-reason">Reason (recorded in the audit log)</label>
        <textarea
          id="pause-reason"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          required
          minLength={3}
          maxLength={500}
          data-testid="pause-reason"
          aria-invalid={errorFor(problem?.errors ?? [], "reason") ? true : undefined}
        />
        {errorFor(problem?.errors ?? [], "reason") ? (
          <p className="field__error">{errorFor(problem?.errors ?? [], "reason")}</p>
        ) : null}
        <div className="actions">
          <button type="submit" className="button button--danger" disabled={busy} data-testid="pause-confirm">
            {pending.action === "pause" ? "Pause" : "Unpause"} {pending.scope}
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
